import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeAnthropic, type FakeAnthropic } from "../../dev/fakes/anthropic";
import { employeeNameOf, scriptedLayers } from "../../dev/fakes/anthropic/scripted-layers";
import { createAnthropicClient } from "../../lib/model/anthropic-client";
import { runL1Task } from "../../lib/model/l1-task";
import { runL2Prompt } from "../../lib/model/l2-prompt";
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

const deps = (layer: "L1" | "L2" | "L3") => ({ client: createAnthropicClient({ apiKey: KEY, baseURL: fake.baseURL, timeoutMs: 5_000 }, {}), settings: LAYER_DEFAULTS[layer] });

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

  it("「今月の取引一覧を見せて」 reads this month's deals only: one read, freee's period filter, no unrequested list", async () => {
    const now = new Date("2026-12-02T01:00:00Z");
    const answer = (await runL1Task(deps("L1"), { text: "今月の取引一覧を見せて", now })).value;
    if (answer.kind !== "request") throw new Error("no request read");
    const plan = (await runL2Prompt(deps("L2"), { task: answer.spec, now })).value;
    expect(plan).toContain("2026-12-01 〜 2026-12-31");
    const steps = (await runL3Process(deps("L3"), { promptText: plan, task: answer.spec, now })).value;
    expect(steps.map((s) => [s.tool, s.toolInput])).toEqual([["freee_accounting_list_deals", { start_issue_date: "2026-12-01", end_issue_date: "2026-12-31", limit: 20 }]]);
  });

  it("先月 in January is December of the year before; a request without a period is read unfiltered and says so", async () => {
    const now = new Date("2027-01-05T01:00:00Z");
    const last = (await runL1Task(deps("L1"), { text: "先月の取引一覧を見せて", now })).value;
    if (last.kind !== "request") throw new Error("no request read");
    const steps = (await runL3Process(deps("L3"), { promptText: (await runL2Prompt(deps("L2"), { task: last.spec, now })).value, task: last.spec, now })).value;
    expect(steps[0]!.toolInput).toMatchObject({ start_issue_date: "2026-12-01", end_issue_date: "2026-12-31" });
    const any = (await runL1Task(deps("L1"), { text: "取引一覧を見せて", now })).value;
    if (any.kind !== "request") throw new Error("no request read");
    const plan = (await runL2Prompt(deps("L2"), { task: any.spec, now })).value;
    expect(plan).toContain("期間の指定がないため");
    const unfiltered = (await runL3Process(deps("L3"), { promptText: plan, task: any.spec, now })).value;
    expect(unfiltered[0]!.toolInput).toEqual({ limit: 20 });
  });
});

describe("the scripted model after a rejection says only what it applied", () => {
  const now = new Date("2026-12-10T01:00:00Z");
  async function firstPlan(request: string) {
    const answer = (await runL1Task(deps("L1"), { text: request, now })).value;
    if (answer.kind !== "request") throw new Error("no request read");
    return { task: answer.spec, plan: (await runL2Prompt(deps("L2"), { task: answer.spec, now })).value };
  }
  const regenerate = async (task: Parameters<typeof runL2Prompt>[1]["task"], previousPromptText: string, rejectionReason: string) =>
    (await runL2Prompt(deps("L2"), { task, now, regeneration: { previousPromptText, rejectionReason } })).value;

  it("a month, a name and an amount in the reason are applied, said, and reach the steps", async () => {
    const { task, plan } = await firstPlan("来月から山田さんの基本給を30万円に変更して");
    const again = await regenerate(task, plan, "2月からにして、対象は佐藤さん、金額は25万円です");
    expect(again.split("\n")[0]).toBe("修正点: 却下理由から対象年月を 2027年2月 に、従業員を 佐藤 に、基本給を 25万円 にしました。スクリプトのモデルが読み取るのは年月・期間・名前・金額だけで、それ以外の指摘は反映していません。");
    const steps = (await runL3Process(deps("L3"), { promptText: again, task, now })).value;
    const write = steps.find((s) => s.effect === "write")!;
    expect(write.toolInput).toEqual({ year: 2027, month: 2, pay_calc_type: "monthly", pay_amount: 250_000 });
    expect(write.nameRefs).toEqual([{ field: "employee_id", name: "佐藤" }]);
  });

  it("a reason it cannot read is said to be unread, and the plan is the previous one word for word", async () => {
    const { task, plan } = await firstPlan("来月から山田さんの基本給を30万円に変更して");
    const again = await regenerate(task, plan, "もっと丁寧な説明にしてください");
    const [first, ...rest] = again.split("\n");
    expect(first).toContain("読み取れなかったため、内容は前の版と同じです");
    expect(again).not.toContain("反映しました");
    expect(rest.join("\n")).toBe(plan);
  });

  it("a rejected Process is regenerated from its own values: a second reason changes only what it names", async () => {
    const { task, plan } = await firstPlan("今月の取引一覧を見せて");
    const v1 = (await runL3Process(deps("L3"), { promptText: plan, task, now })).value;
    const v2 = (await runL3Process(deps("L3"), { promptText: plan, task, now, regeneration: { previousSteps: v1, rejectionReason: "11月の取引にしてください" } })).value;
    expect(v2[0]!.toolInput).toEqual({ start_issue_date: "2026-11-01", end_issue_date: "2026-11-30", limit: 20 });
    const v3 = (await runL3Process(deps("L3"), { promptText: plan, task, now, regeneration: { previousSteps: v2, rejectionReason: "件数を増やして" } })).value;
    expect(v3).toEqual(v2);
  });
});
