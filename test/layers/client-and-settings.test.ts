import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FatalConfigError } from "../../lib/errors/taxonomy";
import { createAnthropicClient, createAnthropicClientFromEnv, DEFAULT_ANTHROPIC_TIMEOUT_MS } from "../../lib/layers/anthropic-client";
import { LAYER_DEFAULTS, loadLayerSettings } from "../../lib/layers/settings";
import { errorReply, jsonReply, startFakeAnthropic, type FakeAnthropic } from "../../dev/fakes/anthropic";
import { caught } from "./helpers";

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: "sk-ant-env-key" });
});
afterAll(async () => fake.close());

describe("createAnthropicClient", () => {
  it("retries nothing itself (maxRetries 0: Step Functions owns retries) and has a bounded timeout", async () => {
    const client = createAnthropicClient({ apiKey: "sk-ant-env-key", baseURL: fake.baseURL });
    expect(client.maxRetries).toBe(0);
    expect(client.timeout).toBe(DEFAULT_ANTHROPIC_TIMEOUT_MS);
    fake.requests.length = 0;
    // Two scripted failures: an SDK with its default retries would come back for the second one.
    fake.enqueue(errorReply(500, "api_error", "boom"), errorReply(500, "api_error", "boom"));
    await expect(client.messages.create({ model: "claude-haiku-4-5", max_tokens: 1, messages: [{ role: "user", content: "x" }] })).rejects.toThrow();
    expect(fake.requests).toHaveLength(1);
    expect(fake.pending()).toBe(1);
    fake.enqueue(jsonReply({}));
    await expect(client.messages.create({ model: "claude-haiku-4-5", max_tokens: 1, messages: [{ role: "user", content: "x" }] })).rejects.toThrow();
    await client.messages.create({ model: "claude-haiku-4-5", max_tokens: 1, messages: [{ role: "user", content: "x" }] });
    expect(fake.pending()).toBe(0);
  });

  it("takes the endpoint from ANTHROPIC_BASE_URL and the key from ANTHROPIC_API_KEY (sent as Authorization: Bearer)", async () => {
    const client = await createAnthropicClientFromEnv({ ANTHROPIC_BASE_URL: fake.baseURL, ANTHROPIC_API_KEY: "sk-ant-env-key", ANTHROPIC_TIMEOUT_MS: "5000" });
    expect(client.timeout).toBe(5000);
    fake.requests.length = 0;
    fake.enqueue(jsonReply({ ok: true }));
    await client.messages.create({ model: "claude-haiku-4-5", max_tokens: 1, messages: [{ role: "user", content: "x" }] });
    expect(fake.requests[0]!.headers.authorization).toBe("Bearer sk-ant-env-key");
    expect(fake.requests[0]!.apiKey).toBe("sk-ant-env-key");
  });

  it("an explicit baseURL wins over ANTHROPIC_BASE_URL", () => {
    const client = createAnthropicClient({ apiKey: "k", baseURL: fake.baseURL }, { ANTHROPIC_BASE_URL: "http://127.0.0.1:1" });
    expect(client.baseURL).toBe(fake.baseURL);
  });

  it("no key → FatalConfigError at cold start", async () => {
    expect(() => createAnthropicClient({ apiKey: " " })).toThrow(FatalConfigError);
    const err = await caught(createAnthropicClientFromEnv({ ANTHROPIC_BASE_URL: fake.baseURL }));
    expect(err).toBeInstanceOf(FatalConfigError);
  });
});

describe("loadLayerSettings", () => {
  it("defaults: a fast model for L1, a strong model for L2/L3", () => {
    const s = loadLayerSettings({});
    expect(s).toEqual(LAYER_DEFAULTS);
    expect(s.L1.model).toBe("claude-haiku-4-5");
    expect(s.L2.model).toBe("claude-sonnet-4-6");
    expect(s.L3.model).toBe("claude-sonnet-4-6");
    expect(s.L1.effort).toBeUndefined();
  });

  it("reads <LAYER>_MODEL, _MAX_TOKENS, _EFFORT (none omits it) and _TIMEOUT_MS", () => {
    const s = loadLayerSettings({ L1_MODEL: "claude-opus-4-6", L1_EFFORT: "low", L2_MAX_TOKENS: "3000", L2_EFFORT: "none", L3_TIMEOUT_MS: "90000" });
    expect(s.L1).toMatchObject({ model: "claude-opus-4-6", effort: "low" });
    expect(s.L2).toMatchObject({ maxTokens: 3000, effort: undefined });
    expect(s.L3).toMatchObject({ timeoutMs: 90000, model: LAYER_DEFAULTS.L3.model });
  });

  it("an invalid value fails loudly (FatalConfigError), never falls back silently", () => {
    expect(() => loadLayerSettings({ L2_EFFORT: "maximum" })).toThrow(FatalConfigError);
    expect(() => loadLayerSettings({ L1_MAX_TOKENS: "lots" })).toThrow(FatalConfigError);
    expect(() => loadLayerSettings({ L3_MAX_TOKENS: "0" })).toThrow(FatalConfigError);
  });

  it("effort only for a model that accepts it: an explicit one it rejects is a FatalConfigError at load, not a 400 per task", () => {
    expect(() => loadLayerSettings({ L1_EFFORT: "medium" })).toThrow(/L1_EFFORT=medium is not accepted by claude-haiku-4-5/);
    expect(() => loadLayerSettings({ L2_EFFORT: "xhigh" })).toThrow(/not accepted by claude-sonnet-4-6 \(accepted: low, medium, high, max\)/);
    expect(() => loadLayerSettings({ L3_MODEL: "claude-opus-4-5", L3_EFFORT: "max" })).toThrow(FatalConfigError);
    // A model this app has no traits for: an explicit effort cannot be vouched for.
    expect(() => loadLayerSettings({ L2_MODEL: "claude-future-9", L2_EFFORT: "low" })).toThrow(/claude-future-9 is not a model this app knows/);
    // The layer's default effort is dropped for a model without it, and kept for a dated snapshot that takes it.
    expect(loadLayerSettings({ L2_MODEL: "claude-haiku-4-5" }).L2.effort).toBeUndefined();
    expect(loadLayerSettings({ L2_MODEL: "claude-future-9" }).L2.effort).toBeUndefined();
    expect(loadLayerSettings({ L3_MODEL: "claude-opus-4-7-20260401", L3_EFFORT: "xhigh" }).L3.effort).toBe("xhigh");
  });
});
