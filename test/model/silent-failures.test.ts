import { describe, expect, it } from "vitest";
import {
  EmptyResponseError,
  RefusedResponseError,
  SilentFailureError,
  TruncatedResponseError,
} from "../../lib/core/errors/taxonomy";
import { messageReply } from "../../dev/fakes/anthropic";
import { caught, expectLayerRequest, expectOutputConfig, LAYER_CASES, onlyRequest, useLayerHarness } from "./helpers";

/**
 * "200 OK but broken" (空レスポンス): every reply is judged BEFORE it is parsed.
 * A reply whose text would even parse is still rejected when the stop reason says it is cut off or refused.
 */
const h = useLayerHarness();
const VALID_LOOKING = '{"steps": []}';

describe.each(LAYER_CASES)("$layer", (c) => {
  it("空レスポンス: 200 OK with no content → EmptyResponseError", async () => {
    h.fake.enqueue(messageReply({ texts: [] }));
    const err = await caught(c.run(h));
    expect(err).toBeInstanceOf(EmptyResponseError);
    expect(err).toBeInstanceOf(SilentFailureError);
    expect(err.name).toBe("EmptyResponseError");
    expect((err as EmptyResponseError).details).toMatchObject({ provider: "anthropic", stopReason: "end_turn", blocks: 0 });
    const req = onlyRequest(h.fake);
    expectLayerRequest(req, h.settings, c.layer, c.system);
    expectOutputConfig(req, h.settings, c);
  });

  it("空レスポンス: only whitespace → EmptyResponseError", async () => {
    h.fake.enqueue(messageReply({ texts: ["  \n\t "] }));
    const err = await caught(c.run(h));
    expect(err).toBeInstanceOf(EmptyResponseError);
    expect((err as EmptyResponseError).details).toMatchObject({ blocks: 1 });
    onlyRequest(h.fake);
  });

  it("stop_reason max_tokens → TruncatedResponseError, judged before parsing", async () => {
    h.fake.enqueue(messageReply({ texts: [VALID_LOOKING], stopReason: "max_tokens" }));
    const err = await caught(c.run(h));
    expect(err).toBeInstanceOf(TruncatedResponseError);
    expect(err.name).toBe("TruncatedResponseError");
    expect((err as TruncatedResponseError).details).toMatchObject({ stopReason: "max_tokens" });
    onlyRequest(h.fake);
  });

  it("stop_reason model_context_window_exceeded → TruncatedResponseError", async () => {
    h.fake.enqueue(messageReply({ texts: [VALID_LOOKING], stopReason: "model_context_window_exceeded" }));
    const err = await caught(c.run(h));
    expect(err).toBeInstanceOf(TruncatedResponseError);
    expect((err as TruncatedResponseError).details).toMatchObject({ stopReason: "model_context_window_exceeded" });
    onlyRequest(h.fake);
  });

  it("stop_reason refusal with stop_details → RefusedResponseError keeping stop_details", async () => {
    const stopDetails = { type: "refusal", category: "general_harms", explanation: "policy" };
    h.fake.enqueue(messageReply({ texts: ["お手伝いできません"], stopReason: "refusal", stopDetails }));
    const err = await caught(c.run(h));
    expect(err).toBeInstanceOf(RefusedResponseError);
    expect(err.name).toBe("RefusedResponseError");
    expect((err as RefusedResponseError).stopDetails).toEqual(stopDetails);
    expect((err as RefusedResponseError).details).toMatchObject({ stopReason: "refusal", stopDetails });
    onlyRequest(h.fake);
  });

  it("expected field missing (no stop_reason) → TruncatedResponseError with the cause kept", async () => {
    h.fake.enqueue(messageReply({ texts: [VALID_LOOKING], omit: ["stop_reason"] }));
    const err = await caught(c.run(h));
    expect(err).toBeInstanceOf(TruncatedResponseError);
    expect(err.cause).toBeInstanceOf(TypeError);
    expect((err as TruncatedResponseError).details).toMatchObject({ missingField: "stop_reason" });
    onlyRequest(h.fake);
  });
});
