import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANTHROPIC_TIMEOUT_MS, createAnthropicClient } from "../../lib/model/anthropic-client";
import { createAnthropicClientFromEnv } from "../../wiring/anthropic-client";
import { FatalConfigError } from "../../lib/core/errors/taxonomy";
import { errorReply, jsonReply, startFakeAnthropic, type FakeAnthropic } from "../../dev/fakes/anthropic";
import { caught } from "./helpers";

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: "sk-ant-env-key" });
});
afterAll(async () => fake.close());

describe("createAnthropicClient", () => {
  it("retries nothing itself (maxRetries 0: Step Functions owns retries) and has a bounded timeout", async () => {
    const client = createAnthropicClient({ apiKey: "sk-ant-env-key", baseURL: fake.baseURL, timeoutMs: ANTHROPIC_TIMEOUT_MS.layers });
    expect(client.maxRetries).toBe(0);
    expect(client.timeout).toBe(ANTHROPIC_TIMEOUT_MS.layers);
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
    const client = await createAnthropicClientFromEnv("layers", { ANTHROPIC_BASE_URL: fake.baseURL, ANTHROPIC_API_KEY: "sk-ant-env-key", ANTHROPIC_TIMEOUT_MS: "5000" });
    expect(client.timeout).toBe(5000);
    fake.requests.length = 0;
    fake.enqueue(jsonReply({ ok: true }));
    await client.messages.create({ model: "claude-haiku-4-5", max_tokens: 1, messages: [{ role: "user", content: "x" }] });
    expect(fake.requests[0]!.headers.authorization).toBe("Bearer sk-ant-env-key");
    expect(fake.requests[0]!.apiKey).toBe("sk-ant-env-key");
  });

  it("an explicit baseURL wins over ANTHROPIC_BASE_URL", () => {
    const client = createAnthropicClient({ apiKey: "k", baseURL: fake.baseURL, timeoutMs: 1000 }, { ANTHROPIC_BASE_URL: "http://127.0.0.1:1" });
    expect(client.baseURL).toBe(fake.baseURL);
  });

  it("no key → FatalConfigError at cold start", async () => {
    expect(() => createAnthropicClient({ apiKey: " ", timeoutMs: 1000 })).toThrow(FatalConfigError);
    const err = await caught(createAnthropicClientFromEnv("agent", { ANTHROPIC_BASE_URL: fake.baseURL }));
    expect(err).toBeInstanceOf(FatalConfigError);
  });
  it("one factory, a timeout per caller: the layers wait longer than a Managed Agents call; ANTHROPIC_TIMEOUT_MS and ANTHROPIC_MAX_RETRIES override", async () => {
    const env = { ANTHROPIC_BASE_URL: fake.baseURL, ANTHROPIC_API_KEY: "sk-ant-env-key" };
    const layers = await createAnthropicClientFromEnv("layers", env);
    const agent = await createAnthropicClientFromEnv("agent", env);
    expect([layers.timeout, agent.timeout]).toEqual([120_000, 30_000]);
    expect([layers.maxRetries, agent.maxRetries]).toEqual([0, 0]);
    const tuned = await createAnthropicClientFromEnv("agent", { ...env, ANTHROPIC_TIMEOUT_MS: "1500", ANTHROPIC_MAX_RETRIES: "1" });
    expect([tuned.timeout, tuned.maxRetries]).toEqual([1500, 1]);
  });
});
