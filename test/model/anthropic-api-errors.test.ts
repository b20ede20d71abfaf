import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import {
  BadRequestError,
  FatalConfigError,
  RateLimitedError,
  TransientError,
  UpstreamServerError,
  UpstreamTimeoutError,
} from "../../lib/core/errors/taxonomy";
import { createAnthropicClient } from "../../lib/model/anthropic-client";
import { errorReply, messageReply } from "../../dev/fakes/anthropic";
import { caught, expectLayerRequest, expectOutputConfig, LAYER_CASES, onlyRequest, useLayerHarness } from "./helpers";

/**
 * Anthropic API errors: the the "Anthropic API エラー" / "レートリミット" rows of the error table, through each
 * layer. The SDK retries nothing (maxRetries 0): exactly one request reaches the server, and the error leaves
 * as the taxonomy class Step Functions retries or catches.
 */
const h = useLayerHarness();

describe.each(LAYER_CASES)("$layer", (c) => {
  it("RateLimitError: 429 with retry-after → RateLimitedError (transient) with retryAfterSeconds, cause kept, no SDK retry", async () => {
    h.fake.enqueue(errorReply(429, "rate_limit_error", "Number of requests has exceeded your rate limit", { "retry-after": "7" }));
    const err = await caught(c.run(h));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toBeInstanceOf(TransientError);
    expect(err.name).toBe("RateLimitedError");
    expect((err as RateLimitedError).retryAfterSeconds).toBe(7);
    expect(err.cause).toBeInstanceOf(Anthropic.RateLimitError);
    const req = onlyRequest(h.fake);
    expectLayerRequest(req, h.settings, c.layer, c.system);
    expectOutputConfig(req, h.settings, c);
  });

  it("InternalServerError: 500 → UpstreamServerError, cause kept, no SDK retry", async () => {
    h.fake.enqueue(errorReply(500, "api_error", "Internal server error"));
    const err = await caught(c.run(h));
    expect(err).toBeInstanceOf(UpstreamServerError);
    expect(err.name).toBe("UpstreamServerError");
    expect(err.cause).toBeInstanceOf(Anthropic.InternalServerError);
    expect((err as UpstreamServerError).details).toMatchObject({ status: 500 });
    expectLayerRequest(onlyRequest(h.fake), h.settings, c.layer, c.system);
  });

  it("InternalServerError: 529 overloaded → UpstreamServerError, cause kept, no SDK retry", async () => {
    h.fake.enqueue(errorReply(529, "overloaded_error", "Overloaded"));
    const err = await caught(c.run(h));
    expect(err).toBeInstanceOf(UpstreamServerError);
    expect(err.cause).toBeInstanceOf(Anthropic.InternalServerError);
    expect((err as UpstreamServerError).details).toMatchObject({ status: 529 });
    expectLayerRequest(onlyRequest(h.fake), h.settings, c.layer, c.system);
  });

  it("APITimeoutError: a slow response → UpstreamTimeoutError after the layer's timeout, cause kept", async () => {
    const settings = { ...h.settings, [c.layer]: { ...h.settings[c.layer], timeoutMs: 200 } };
    h.fake.enqueue({ ...messageReply("遅すぎる返事"), delayMs: 2_000 });
    // The reply does come, 2 s later: an error rather than 遅すぎる返事 is the layer's own timeout ending the call.
    const err = await caught(c.run({ ...h, settings, deps: (layer) => ({ client: h.client, settings: settings[layer] }) }));
    expect(err).toBeInstanceOf(UpstreamTimeoutError);
    expect(err.name).toBe("UpstreamTimeoutError");
    expect(err.cause).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    expect(onlyRequest(h.fake).body.model).toBe(h.settings[c.layer].model);
  });

  it("BadRequestError: 400 → BadRequestError (no retry), cause kept", async () => {
    h.fake.enqueue(errorReply(400, "invalid_request_error", "max_tokens: must be at most 64000"));
    const err = await caught(c.run(h));
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.name).toBe("BadRequestError");
    expect(err.cause).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as BadRequestError).details).toMatchObject({ status: 400, requestId: "req_fake_err_400" });
    expectLayerRequest(onlyRequest(h.fake), h.settings, c.layer, c.system);
  });

  it("AuthenticationError: 401 (wrong key) → FatalConfigError, cause kept, key not in the message", async () => {
    const wrongKey = "sk-ant-wrong-key-123";
    const client = createAnthropicClient({ apiKey: wrongKey, baseURL: h.fake.baseURL, timeoutMs: 5_000 }, {});
    const err = await caught(c.run({ ...h, deps: (layer) => ({ client, settings: h.settings[layer] }) }));
    expect(err).toBeInstanceOf(FatalConfigError);
    expect(err.name).toBe("FatalConfigError");
    expect(err.cause).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(err.message).not.toContain(wrongKey);
    expect(onlyRequest(h.fake).apiKey).toBe(wrongKey);
  });
});
