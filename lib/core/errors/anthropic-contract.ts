import type Anthropic from "@anthropic-ai/sdk";
import { judgeReply, requireField, type LlmReply, type ResponseContract } from "./response-contract";
import { TruncatedResponseError } from "./taxonomy";

/** Anthropic's stop-reason names, mapped to the judge's categories in this one place. */
export const anthropicContract: ResponseContract = {
  provider: "anthropic",
  truncatedStopReasons: new Set(["max_tokens", "model_context_window_exceeded"]),
  refusedStopReasons: new Set(["refusal"]),
};

/** Converts a Messages API reply to the judge's neutral shape; missing fields become TruncatedResponseError. */
export function toLlmReply(message: Anthropic.Message): LlmReply {
  const content = requireField(message, "content", "anthropic message");
  if (!Array.isArray(content)) {
    throw new TruncatedResponseError("anthropic message: content is not a list", {
      cause: new TypeError(`content is ${typeof content}`),
    });
  }
  // A finished (non-streaming) reply always names its stop reason; without one we cannot tell it is whole.
  const stopReason: string = requireField(message, "stop_reason", "anthropic message");
  const stopDetails = (message as { stop_details?: unknown }).stop_details ?? null;
  const texts = content.flatMap((block) => (block.type === "text" ? [requireField(block, "text", "text block")] : []));
  return { stopReason, stopDetails, texts };
}

/** Judge a Messages API reply with the Anthropic contract; returns the validated text. */
export function judgeAnthropicMessage(message: Anthropic.Message): string {
  return judgeReply(toLlmReply(message), anthropicContract);
}
