import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeAnthropic, type FakeAnthropic } from "../../dev/fakes/anthropic";
import { scriptedLayers } from "../../dev/fakes/anthropic/scripted-layers";
import { createAnthropicClient } from "../../lib/model/anthropic-client";
import { runL1Task } from "../../lib/model/l1-task";
import { loadLayerSettings } from "../../lib/model/settings";
import { NOW, TEST_API_KEY } from "./helpers";

/**
 * The scripted model the sandbox and the e2e tests use (dev/fakes/anthropic/scripted-layers.ts), read by the real
 * L1 (request, output format, parser): a greeting or a question is no request; a request for work is one.
 */
let fake: FakeAnthropic;
const run = (text: string) =>
  runL1Task({ client: createAnthropicClient({ apiKey: TEST_API_KEY, baseURL: fake.baseURL, timeoutMs: 5_000 }, {}), settings: loadLayerSettings({}).L1 }, { text, now: NOW });
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: TEST_API_KEY, respond: scriptedLayers });
});
afterAll(async () => fake.close());

describe("scripted L1: not every message is a request", () => {
  it.each(["こんにちは", "おはようございます！", "何ができるの？", "hello"])("「%s」 → not_a_request with a short Japanese reply", async (text) => {
    const { value } = await run(text);
    expect(value.kind).toBe("not_a_request");
    if (value.kind !== "not_a_request") return;
    expect(value.reply).toMatch(/freee で行いたいこと/);
  });

  it.each([
    ["来月から山田さんの基本給を30万円に変更して", "hr"],
    ["経費の取引を見せて", "accounting"],
    ["今月の勤怠を登録して", "hr"],
  ])("「%s」 → a request (%s)", async (text, domain) => {
    const { value } = await run(text);
    expect(value.kind).toBe("request");
    if (value.kind === "request") expect(value.spec.domain).toBe(domain);
  });
});
