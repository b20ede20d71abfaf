import type Anthropic from "@anthropic-ai/sdk";
import * as z from "../core/zod";
import type { MessagesClient } from "./anthropic-client";
import { judgeAnthropicMessage } from "../core/errors/anthropic-contract";
import { classifyAnthropicError, classifyError } from "../core/errors/classify";
import { requireField } from "../core/errors/response-contract";
import { MalformedOutputError } from "../core/errors/taxonomy";
import type { TokenUsage } from "../core/domain/records";
import { cachePlan } from "./prompt-cache";
import type { LayerName, LayerSettings } from "./settings";

/**
 * The one way L1–L3 talk to the model: `messages.create` (not `parse`) so the reply is judged against the
 * contract (stop reason, empty text) BEFORE anything reads it as JSON; SDK errors leave as taxonomy classes.
 */

/** What each layer function is given: the client (created once per Lambda) and that layer's settings. */
export interface LayerDeps {
  client: MessagesClient;
  settings: LayerSettings;
}

export interface ModelRequest {
  layer: LayerName;
  settings: LayerSettings;
  /**
   * Static per layer: sent as one block, marked `cache_control: ephemeral` only when it reaches the model's
   * minimum cacheable length (prompt-cache.ts); below it the mark would cache nothing.
   */
  system: string;
  /** The per-call part: the data of this request. */
  user: string;
}

export interface ModelResult<T> {
  value: T;
  /** The judged text the value was read from. */
  text: string;
  usage: TokenUsage;
  /** The model that answered, as the API reported it. */
  model: string;
  requestId: string | undefined;
}

/** What a JSON layer asks for: the schema the API enforces, and the schema the reply is read with. */
export interface JsonOutput<T> {
  /** Sent as `output_config.format`. Made at build time by `outputFormatOf` (lib/model/output-schemas.ts). */
  format: Anthropic.JSONOutputFormat;
  /** Parses the JSON value into the layer's result; its issues become MalformedOutputError details. */
  parse: z.ZodMiniType<T>;
}

/** A natural-language reply (L2): the judged text, trimmed. */
export async function callModelText(client: MessagesClient, request: ModelRequest): Promise<ModelResult<string>> {
  const { message, text } = await send(client, request, undefined);
  return { value: text.trim(), text, ...meta(message) };
}

/** A JSON reply (L1, L3): judged, unfenced, parsed, validated. */
export async function callModelJson<T>(
  client: MessagesClient,
  request: ModelRequest,
  output: JsonOutput<T>,
): Promise<ModelResult<T>> {
  const { message, text } = await send(client, request, output.format);
  const value = parseJsonReply(text, output.parse, request.layer);
  return { value, text, ...meta(message) };
}

/** The exact request body, exported so tests and the audit can see what a layer sends. */
export function buildParams(
  request: ModelRequest,
  format: Anthropic.JSONOutputFormat | undefined,
): Anthropic.MessageCreateParamsNonStreaming {
  const { settings } = request;
  const outputConfig: Anthropic.OutputConfig = {
    ...(settings.effort === undefined ? {} : { effort: settings.effort }),
    ...(format === undefined ? {} : { format }),
  };
  return {
    model: settings.model,
    max_tokens: settings.maxTokens,
    system: [{ type: "text", text: request.system, ...(cachePlan(settings.model, request.system).breakpoint ? { cache_control: { type: "ephemeral" as const } } : {}) }],
    messages: [{ role: "user", content: request.user }],
    ...(Object.keys(outputConfig).length === 0 ? {} : { output_config: outputConfig }),
  };
}

async function send(
  client: MessagesClient,
  request: ModelRequest,
  format: Anthropic.JSONOutputFormat | undefined,
): Promise<{ message: Anthropic.Message; text: string }> {
  const where = `anthropic ${request.layer}`;
  let message: Anthropic.Message;
  try {
    message = await client.messages.create(buildParams(request, format), { timeout: request.settings.timeoutMs });
  } catch (err) {
    throw classifyAnthropicError(err, where) ?? classifyError(err, where);
  }
  // The contract first: a refused, cut-off or empty reply never reaches the parser.
  return { message, text: judgeAnthropicMessage(message) };
}

/**
 * Fallback: a reply may arrive wrapped in a markdown fence (```json … ```) — take what is inside.
 * Only a fence around the whole reply is removed; anything else is left for JSON.parse to judge.
 */
export function stripMarkdownFence(text: string): string {
  const match = /^\s*```[A-Za-z0-9_-]*[^\S\n]*\n([\s\S]*?)\n?[^\S\n]*```\s*$/.exec(text);
  return match?.[1] ?? text.trim();
}

export function parseJsonReply<T>(text: string, schema: z.ZodMiniType<T>, layer: LayerName): T {
  const body = stripMarkdownFence(text);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (cause) {
    throw new MalformedOutputError(`${layer}: reply is not valid JSON`, {
      cause,
      details: { layer, problem: "json_parse", parseError: (cause as Error).message, length: text.length },
    });
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issues = result.error.issues.map((i) => ({ path: i.path.map(String).join("."), code: i.code, message: i.message }));
    throw new MalformedOutputError(`${layer}: reply does not match the schema: ${describeIssues(issues)}`, {
      cause: result.error,
      details: { layer, problem: "schema", issues },
    });
  }
  return result.data;
}

/** One line per issue; this text is what an L3 retry shows the model. */
export function describeIssues(issues: readonly { path: string; message: string }[]): string {
  return issues.map((i) => (i.path === "" ? i.message : `${i.path}: ${i.message}`)).join("; ");
}

function meta(message: Anthropic.Message): Omit<ModelResult<unknown>, "value" | "text"> {
  const usage = requireField(message, "usage", "anthropic message");
  return {
    usage: {
      inputTokens: requireField(usage, "input_tokens", "anthropic usage"),
      outputTokens: requireField(usage, "output_tokens", "anthropic usage"),
      // null means "no cache involved" (the API's own convention), which is zero tokens.
      cacheReadInputTokens: usage.cache_read_input_tokens ?? 0,
      cacheCreationInputTokens: usage.cache_creation_input_tokens ?? 0,
    },
    model: message.model,
    requestId: (message as { _request_id?: string | null })._request_id ?? undefined,
  };
}
