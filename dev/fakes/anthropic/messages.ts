/**
 * The Messages API's request checks (the shapes of @anthropic-ai/sdk's MessageCreateParams, and what the API
 * refuses beyond the types: a model that does not take `effort`, metadata other than `user_id`, roles out of
 * order), and builders for the replies a test scripts.
 */

export interface ModelSpec {
  maxOutputTokens: number;
  /** The `output_config.effort` values the model accepts (none: the parameter is refused). */
  efforts: readonly string[];
}

/** Models the project uses, as the API describes them (Haiku 4.5 takes no effort). */
export const MODELS: Record<string, ModelSpec> = {
  "claude-haiku-4-5": { maxOutputTokens: 64_000, efforts: [] },
  "claude-sonnet-4-5": { maxOutputTokens: 64_000, efforts: [] },
  "claude-sonnet-4-6": { maxOutputTokens: 64_000, efforts: ["low", "medium", "high", "max"] },
  "claude-opus-4-6": { maxOutputTokens: 128_000, efforts: ["low", "medium", "high", "max"] },
  "claude-opus-4-7": { maxOutputTokens: 128_000, efforts: ["low", "medium", "high", "xhigh", "max"] },
};

const TOP_LEVEL = new Set([
  "model", "max_tokens", "messages", "system", "metadata", "stop_sequences", "stream", "temperature", "top_k", "top_p",
  "tools", "tool_choice", "thinking", "output_config", "service_tier", "container", "mcp_servers", "context_management", "inference_geo",
]);

export interface ApiError {
  status: number;
  type: string;
  message: string;
}

const invalid = (message: string): ApiError => ({ status: 400, type: "invalid_request_error", message });

/** The first thing the API would refuse in a Messages request, or undefined. */
export function checkMessageParams(body: unknown, models: Record<string, ModelSpec>): ApiError | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return invalid("body: Input should be an object");
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) if (!TOP_LEVEL.has(key)) return invalid(`${key}: Extra inputs are not permitted`);
  if (typeof b.model !== "string" || b.model === "") return invalid("model: Field required");
  const model = models[b.model];
  if (model === undefined) return { status: 404, type: "not_found_error", message: `model: ${b.model}` };
  if (!Number.isInteger(b.max_tokens) || (b.max_tokens as number) < 1) return invalid("max_tokens: Field required (an integer of at least 1)");
  if ((b.max_tokens as number) > model.maxOutputTokens) {
    return invalid(`max_tokens: ${String(b.max_tokens)} > ${model.maxOutputTokens}, which is the maximum allowed number of output tokens for ${b.model}`);
  }
  if (!Array.isArray(b.messages) || b.messages.length === 0) return invalid("messages: at least one message is required");
  // Consecutive turns of one role are merged by the API; what it refuses is a role it does not know.
  for (const [i, m] of (b.messages as Record<string, unknown>[]).entries()) {
    if (m.role !== "user" && m.role !== "assistant") return invalid(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const content = m.content;
    if (typeof content === "string") {
      if (content === "" && m.role === "user") return invalid(`messages.${i}: user messages must have non-empty content`);
    } else if (!Array.isArray(content) || content.length === 0) return invalid(`messages.${i}.content: Input should be a valid list or string`);
    else {
      for (const [j, block] of (content as Record<string, unknown>[]).entries()) {
        if (typeof block.type !== "string") return invalid(`messages.${i}.content.${j}.type: Field required`);
        if (block.type === "text" && (typeof block.text !== "string" || block.text === "")) return invalid(`messages.${i}.content.${j}.text: text content blocks must be non-empty`);
      }
    }
  }
  if (b.system !== undefined && typeof b.system !== "string") {
    if (!Array.isArray(b.system)) return invalid("system: Input should be a valid list or string");
    for (const [i, s] of (b.system as Record<string, unknown>[]).entries()) {
      if (s.type !== "text" || typeof s.text !== "string" || s.text === "") return invalid(`system.${i}: system blocks must be non-empty text blocks`);
      const cache = s.cache_control as Record<string, unknown> | undefined;
      if (cache !== undefined && cache.type !== "ephemeral") return invalid(`system.${i}.cache_control.type: Input should be 'ephemeral'`);
    }
  }
  if (b.metadata !== undefined) {
    const metadata = b.metadata as Record<string, unknown>;
    for (const key of Object.keys(metadata)) if (key !== "user_id") return invalid(`metadata.${key}: Extra inputs are not permitted`);
    if (metadata.user_id !== undefined && metadata.user_id !== null && (typeof metadata.user_id !== "string" || metadata.user_id.length > 256)) {
      return invalid("metadata.user_id: String should have at most 256 characters");
    }
  }
  if (b.output_config !== undefined && b.output_config !== null) {
    const oc = b.output_config as Record<string, unknown>;
    for (const key of Object.keys(oc)) if (key !== "effort" && key !== "format") return invalid(`output_config.${key}: Extra inputs are not permitted`);
    if (oc.effort !== undefined && oc.effort !== null) {
      if (!["low", "medium", "high", "xhigh", "max"].includes(String(oc.effort))) return invalid("output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'");
      if (!model.efforts.includes(String(oc.effort))) return invalid(`output_config.effort: ${b.model} does not support effort '${String(oc.effort)}'`);
    }
    if (oc.format !== undefined && oc.format !== null) {
      const format = oc.format as Record<string, unknown>;
      if (format.type !== "json_schema" || typeof format.schema !== "object" || format.schema === null) return invalid("output_config.format: a json_schema format needs a schema object");
    }
  }
  return undefined;
}

// ---------------------------------------------------------------- reply builders

export interface ScriptedReply {
  status: number;
  headers?: Record<string, string>;
  /** JSON body; a string is sent as is (for non-JSON bodies). */
  body: unknown;
  /** Wait this long before answering (a slow upstream, for timeout tests). */
  delayMs?: number;
}

let messageCounter = 0;

export interface MessageReplyOptions {
  /** Text blocks of the reply; `[]` for a reply with no content. */
  texts?: string[];
  stopReason?: string | null;
  stopDetails?: unknown;
  model?: string;
  usage?: Partial<{ input_tokens: number; output_tokens: number; cache_read_input_tokens: number | null; cache_creation_input_tokens: number | null }>;
  /** Remove fields from the message body (for "expected field missing" cases). */
  omit?: string[];
  headers?: Record<string, string>;
  delayMs?: number;
}

/** A 200 Messages API reply with the given text (one text block) or options. */
export function messageReply(textOrOptions: string | MessageReplyOptions): ScriptedReply {
  const o: MessageReplyOptions = typeof textOrOptions === "string" ? { texts: [textOrOptions] } : textOrOptions;
  messageCounter += 1;
  const body: Record<string, unknown> = {
    id: `msg_fake_${messageCounter}`,
    type: "message",
    role: "assistant",
    model: o.model ?? "claude-sonnet-4-6",
    content: (o.texts ?? []).map((text) => ({ type: "text", text, citations: null })),
    stop_reason: o.stopReason === undefined ? "end_turn" : o.stopReason,
    stop_sequence: null,
    stop_details: o.stopDetails ?? null,
    usage: { input_tokens: 120, output_tokens: 45, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, ...o.usage },
  };
  for (const key of o.omit ?? []) delete body[key];
  return { status: 200, body, headers: { "request-id": `req_fake_${messageCounter}`, ...o.headers }, ...(o.delayMs === undefined ? {} : { delayMs: o.delayMs }) };
}

/** A JSON reply: the value serialised into one text block. */
export function jsonReply(value: unknown, options: Omit<MessageReplyOptions, "texts"> = {}): ScriptedReply {
  return messageReply({ ...options, texts: [JSON.stringify(value)] });
}

/** An error in the API's own shape: `{type: "error", error: {type, message}}`. */
export function errorReply(status: number, type: string, message: string, headers: Record<string, string> = {}): ScriptedReply {
  return { status, headers: { "request-id": `req_fake_err_${status}`, ...headers }, body: { type: "error", error: { type, message } } };
}
