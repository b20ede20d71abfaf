import type { MessagesClient } from "../../lib/model/anthropic-client";
import type Anthropic from "@anthropic-ai/sdk";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import type { TaskSpec } from "../../lib/core/domain/records";
import { L1_OUTPUT, L1_SYSTEM_PROMPT, runL1Task } from "../../lib/model/l1-task";
import { L2_SYSTEM_PROMPT, runL2Prompt } from "../../lib/model/l2-prompt";
import { L3_OUTPUT, L3_SYSTEM_PROMPT, runL3Process } from "../../lib/model/l3-process";
import { createAnthropicClient } from "../../lib/model/anthropic-client";
import type { LayerDeps } from "../../lib/model/call-model";
import { loadLayerSettings, type LayerName, type LayersSettings } from "../../lib/model/settings";
import { startFakeAnthropic, type FakeAnthropic, type RecordedRequest } from "../../dev/fakes/anthropic";

export const TEST_API_KEY = "sk-ant-test-key";
/** 2026-11-30 09:00 JST: "来月" is 2026-12. */
export const NOW = new Date("2026-11-30T00:00:00Z");

export interface LayerHarness {
  fake: FakeAnthropic;
  client: MessagesClient;
  settings: LayersSettings;
  deps(layer: LayerName): LayerDeps;
}

/** One fake Anthropic server per test file; the queue is checked empty after every test. */
export function useLayerHarness(): LayerHarness {
  const harness = {} as LayerHarness;
  beforeAll(async () => {
    harness.fake = await startFakeAnthropic({ apiKey: TEST_API_KEY });
    harness.client = createAnthropicClient({ apiKey: TEST_API_KEY, baseURL: harness.fake.baseURL, timeoutMs: 5_000 }, {});
    harness.settings = loadLayerSettings({});
    harness.deps = (layer) => ({ client: harness.client, settings: harness.settings[layer] });
  });
  afterEach(() => {
    // A reply left in the queue means a test expected a call that never happened (or a retry that must not).
    expect(harness.fake.pending()).toBe(0);
    harness.fake.requests.length = 0;
  });
  afterAll(async () => harness.fake.close());
  return harness;
}

export async function caught(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the call to throw");
}

export function onlyRequest(fake: FakeAnthropic): RecordedRequest {
  expect(fake.requests).toHaveLength(1);
  return fake.requests[0]!;
}

/**
 * What every layer request carries: the model, and the system prompt as one block, marked for the cache on L2
 * and L3 (their prefix reaches Sonnet 4.6's minimum) but not on L1 (Haiku 4.5 caches from 4,096 tokens).
 */
const CACHED_LAYER: Record<LayerName, boolean> = { L1: false, L2: true, L3: true };
export function expectLayerRequest(req: RecordedRequest, settings: LayersSettings, layer: LayerName, systemPrompt: string): void {
  expect(req.method).toBe("POST");
  expect(req.path).toBe("/v1/messages");
  expect(req.apiKey).toBe(TEST_API_KEY);
  expect(req.body.model).toBe(settings[layer].model);
  expect(req.body.max_tokens).toBe(settings[layer].maxTokens);
  expect(req.body.system).toEqual([{ type: "text", text: systemPrompt, ...(CACHED_LAYER[layer] ? { cache_control: { type: "ephemeral" } } : {}) }]);
  expect(req.body.stream).toBeUndefined();
}

/** The user message text of a recorded request. */
export function userText(req: RecordedRequest): string {
  const content = req.body.messages?.[0]?.content;
  expect(typeof content).toBe("string");
  return content as string;
}

// ---------------------------------------------------------------- the three layers, callable alike


export const REQUEST_TEXT = "来月から山田さんの基本給を30万円に変更して";

export const TASK: TaskSpec = {
  title: "山田さんの基本給変更",
  intent: "山田さんの基本給を 2026 年 12 月から月額 30 万円に変更する。",
  domain: "hr",
  parameters: { employee_name: "山田", new_basic_pay: 300000, effective_year: 2026, effective_month: 12 },
  missingInformation: ["山田さんの従業員 ID（同姓の従業員がいる場合の特定）"],
};

export const PROMPT_TEXT = [
  "目的: 山田さんの基本給を 2026 年 12 月分から月額 300,000 円に変更する。",
  "対象: 接続済みの事業所、従業員「山田」、2026 年 12 月。",
  "手順:",
  "1. 2026 年 12 月に在籍する従業員の一覧を取得し、山田さんの従業員 ID を特定する（参照）。",
  "2. 山田さんの現在の基本給設定を取得して確認する（参照）。",
  "3. 2026 年 12 月から月給 300,000 円に基本給設定を更新する（変更）。",
  "変更内容: 基本給 現在の額 → 300,000 円（月給）、適用開始 2026 年 12 月。",
  "確認事項: 山田という姓の従業員が複数いる場合は、どの従業員かを確認する。",
].join("\n");

export interface LayerCase {
  layer: LayerName;
  system: string;
  format: Anthropic.JSONOutputFormat | undefined;
  run(h: LayerHarness): Promise<unknown>;
}

export const LAYER_CASES: readonly LayerCase[] = [
  {
    layer: "L1",
    system: L1_SYSTEM_PROMPT,
    format: L1_OUTPUT.format,
    run: (h) => runL1Task(h.deps("L1"), { text: REQUEST_TEXT, now: NOW }),
  },
  {
    layer: "L2",
    system: L2_SYSTEM_PROMPT,
    format: undefined,
    run: (h) => runL2Prompt(h.deps("L2"), { task: TASK, requestText: REQUEST_TEXT, now: NOW }),
  },
  {
    layer: "L3",
    system: L3_SYSTEM_PROMPT,
    format: L3_OUTPUT.format,
    run: (h) => runL3Process(h.deps("L3"), { promptText: PROMPT_TEXT, task: TASK, now: NOW }),
  },
];

/** The output_config a layer sends: its JSON format (L1, L3) and its effort when set. */
export function expectOutputConfig(req: RecordedRequest, settings: LayersSettings, c: LayerCase): void {
  const effort = settings[c.layer].effort;
  const expected = { ...(effort === undefined ? {} : { effort }), ...(c.format === undefined ? {} : { format: c.format }) };
  if (Object.keys(expected).length === 0) expect(req.body.output_config).toBeUndefined();
  else expect(req.body.output_config).toEqual(expected);
}
