import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { anthropicContract, judgeAnthropicMessage, toLlmReply } from "../../../lib/core/errors/anthropic-contract";
import { judgeReply, requireField, type ResponseContract } from "../../../lib/core/errors/response-contract";
import {
  EmptyResponseError,
  RefusedResponseError,
  SilentFailureError,
  TruncatedResponseError,
} from "../../../lib/core/errors/taxonomy";

function message(overrides: Record<string, unknown>): Anthropic.Message {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [{ type: "text", text: "要約です。", citations: null }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
    ...overrides,
  } as unknown as Anthropic.Message;
}

describe("response contract judge (Exception Translation)", () => {
  it("valid: returns the text", () => {
    expect(judgeAnthropicMessage(message({}))).toBe("要約です。");
  });

  it("empty: 200 OK with no text block is EmptyResponseError", () => {
    expect(() => judgeAnthropicMessage(message({ content: [] }))).toThrow(EmptyResponseError);
  });

  it("empty: whitespace-only text is EmptyResponseError", () => {
    expect(() => judgeAnthropicMessage(message({ content: [{ type: "text", text: " \n\t　" }] }))).toThrow(EmptyResponseError);
  });

  it("truncated by stop reason max_tokens", () => {
    const err = catchError(() => judgeAnthropicMessage(message({ stop_reason: "max_tokens" })));
    expect(err).toBeInstanceOf(TruncatedResponseError);
    expect((err as TruncatedResponseError).details).toMatchObject({ stopReason: "max_tokens" });
  });

  it("truncated by stop reason model_context_window_exceeded", () => {
    expect(() => judgeAnthropicMessage(message({ stop_reason: "model_context_window_exceeded" }))).toThrow(TruncatedResponseError);
  });

  it("a cut-off reply with some text is still truncated, never stored as done", () => {
    expect(() => judgeAnthropicMessage(message({ stop_reason: "max_tokens", content: [{ type: "text", text: "途中まで" }] }))).toThrow(TruncatedResponseError);
  });

  it("truncated by a missing field: content missing, cause kept", () => {
    const err = catchError(() => judgeAnthropicMessage(message({ content: undefined })));
    expect(err).toBeInstanceOf(TruncatedResponseError);
    expect((err as Error).cause).toBeInstanceOf(TypeError);
  });

  it("truncated by a missing field: stop_reason missing, cause kept", () => {
    const err = catchError(() => judgeAnthropicMessage(message({ stop_reason: undefined })));
    expect(err).toBeInstanceOf(TruncatedResponseError);
    expect((err as Error).cause).toBeDefined();
  });

  it("truncated by a missing field: a text block without text, never a default empty string", () => {
    const err = catchError(() => judgeAnthropicMessage(message({ content: [{ type: "text" }] })));
    expect(err).toBeInstanceOf(TruncatedResponseError);
    expect((err as Error).cause).toBeInstanceOf(TypeError);
  });

  it("refused: stop_reason refusal keeps stop_details", () => {
    const stopDetails = { type: "refusal", category: "cyber", explanation: "policy" };
    const err = catchError(() => judgeAnthropicMessage(message({ stop_reason: "refusal", stop_details: stopDetails, content: [] })));
    expect(err).toBeInstanceOf(RefusedResponseError);
    expect(err).toBeInstanceOf(SilentFailureError);
    expect((err as RefusedResponseError).stopDetails).toEqual(stopDetails);
  });

  it("the judge is provider-neutral: another provider's names map through its own contract", () => {
    const other: ResponseContract = { provider: "other", truncatedStopReasons: new Set(["length"]), refusedStopReasons: new Set(["content_filter"]) };
    expect(() => judgeReply({ stopReason: "length", stopDetails: null, texts: ["a"] }, other)).toThrow(TruncatedResponseError);
    expect(() => judgeReply({ stopReason: "content_filter", stopDetails: null, texts: ["a"] }, other)).toThrow(RefusedResponseError);
    expect(judgeReply({ stopReason: "stop", stopDetails: null, texts: ["a", "b"] }, other)).toBe("ab");
    // Anthropic's names mean nothing to this contract.
    expect(judgeReply({ stopReason: "max_tokens", stopDetails: null, texts: ["a"] }, other)).toBe("a");
  });

  it("the Anthropic contract is built in one place", () => {
    expect([...anthropicContract.truncatedStopReasons].sort()).toEqual(["max_tokens", "model_context_window_exceeded"]);
    expect([...anthropicContract.refusedStopReasons]).toEqual(["refusal"]);
  });

  it("non-text blocks are ignored when collecting the text", () => {
    const reply = toLlmReply(message({ content: [{ type: "thinking", thinking: "…", signature: "s" }, { type: "text", text: "答え" }] }));
    expect(reply.texts).toEqual(["答え"]);
  });

  it("requireField names the missing field", () => {
    const err = catchError(() => requireField({ a: undefined } as { a?: string }, "a", "where"));
    expect(err).toBeInstanceOf(TruncatedResponseError);
    expect((err as TruncatedResponseError).details).toEqual({ missingField: "a" });
  });
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}
