import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeAnthropic, type FakeAnthropic } from "../../dev/fakes/anthropic";
import { employeeNameOf, scriptedLayers } from "../../dev/fakes/anthropic/scripted-layers";
import { createAnthropicClient } from "../../lib/model/anthropic-client";
import { runL1Task } from "../../lib/model/l1-task";
import { runL3Process } from "../../lib/model/l3-process";
import { LAYER_DEFAULTS } from "../../lib/model/settings";

/**
 * The sandbox's scripted model, driven by the real layers over HTTP (the Anthropic SDK → the fake's Messages
 * API): 「来月」 is the month after today in Japan at any hour — the 1st of a month included, when the UTC date
 * is still the last day of the previous one — and the employee the request names is left to the preview to
 * resolve against the scripted freee (nameRefs), never employee 1 by default.
 */
const KEY = "scripted-model-test";
let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: KEY, respond: scriptedLayers });
});
afterAll(() => fake.close());

const deps = (layer: "L1" | "L3") => ({ client: createAnthropicClient({ apiKey: KEY, baseURL: fake.baseURL, timeoutMs: 5_000 }, {}), settings: LAYER_DEFAULTS[layer] });

async function planAt(now: Date, request: string) {
  const answer = (await runL1Task(deps("L1"), { text: request, now })).value;
  if (answer.kind !== "request") throw new Error(`the scripted L1 read no request in 「${request}」`);
  const task = answer.spec;
  const steps = (await runL3Process(deps("L3"), { promptText: "基本給を変更する", task, now })).value;
  return { task, steps };
}

describe("the scripted model", () => {
  it.each([
    ["00:30 JST on 1 December (UTC: 30 November)", "2026-11-30T15:30:00Z", { year: 2027, month: 1 }],
    ["00:30 JST on 1 January (UTC: 31 December)", "2026-12-31T15:30:00Z", { year: 2027, month: 2 }],
    ["23:59 JST on 30 November", "2026-11-30T14:59:00Z", { year: 2026, month: 12 }],
    ["noon JST on 15 June", "2026-06-15T03:00:00Z", { year: 2026, month: 7 }],
  ])("「来月」 at %s", async (_when, iso, expected) => {
    const { steps } = await planAt(new Date(iso), "来月から山田さんの基本給を30万円に変更して");
    for (const step of steps.filter((s) => s.tool.startsWith("freee_hr_"))) expect(step.toolInput).toMatchObject(expected);
  });

  it("names the employee the request gives for the preview to resolve (佐藤さん is not employee 1)", async () => {
    const { task, steps } = await planAt(new Date("2026-12-10T01:00:00Z"), "来月から佐藤さんの基本給を35万円に変更して");
    expect(task.parameters).toMatchObject({ employee_name: "佐藤" });
    const write = steps.find((s) => s.effect === "write")!;
    expect(write.tool).toBe("freee_hr_update_basic_pay_rule");
    expect(write.toolInput).toEqual({ year: 2027, month: 1, pay_calc_type: "monthly", pay_amount: 350_000 });
    expect(write.nameRefs).toEqual([{ field: "employee_id", name: "佐藤" }]);
  });

  it("reads the name before さん, not the words before it", () => {
    expect(employeeNameOf("来月から山田さんの基本給を30万円に変更して")).toBe("山田");
    expect(employeeNameOf("鈴木一郎さんの勤怠")).toBe("鈴木一郎");
    expect(employeeNameOf("基本給を30万円に変更して")).toBeUndefined();
  });

  it("without a name, plans no write it would have to guess an employee for", async () => {
    const { steps } = await planAt(new Date("2026-12-10T01:00:00Z"), "来月から基本給を30万円に変更して");
    expect(steps.filter((s) => s.effect === "write")).toEqual([]);
  });
});
