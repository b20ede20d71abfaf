import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SlackMessages } from "../../lib/core/messages/ja";
import { jsonReply } from "../../dev/fakes/anthropic";
import { entriesOf, failuresOf, path, retriesOf, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { decide, expectPipelineFailure, l1Ok, l2Ok, slackTexts } from "./fixtures";

/**
 * The PreviewProcess state of the synthesized TaskPipeline, run locally against the strict freee fake: what the
 * Process card says before the approve button exists, and each Retry / Catch row of the state.
 */
let h: PipelineHarness;
beforeAll(async () => {
  // A short freee read timeout, so the timeout row runs in test time (the default is 10 s).
  h = await startPipelineHarness({ env: { FREEE_READ_TIMEOUT_MS: "300" } });
});
afterAll(async () => h.close());
beforeEach(async () => {
  h.slack.reset();
  await h.connectFreee();
});

const wire = (order: number, tool: string, toolInput: Record<string, unknown>) => ({ stepId: `s${order}`, order, tool, toolInput: JSON.stringify(toolInput) });
const WRITE_PLAN = {
  steps: [
    wire(1, "freee_hr_get_basic_pay_rule", { year: 2027, month: 1, employee_id: 1 }),
    wire(2, "freee_hr_update_basic_pay_rule", { year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 300_000 }),
  ],
};
const SUMMARY = "山田 太郎 基本給 280,000円 → 300,000円（2027年1月支給分から）";
/** The same change as the Process card's table row shows it. */
const ROW = "従業員 山田 太郎 ｜ 基本給 ｜ 280,000円 → 300,000円 ｜ +20,000円（+7.1%） ｜ 2027年1月支給分から";

/** A task whose Process is WRITE_PLAN, up to its pipeline reaching the Process approval (or failing before it). */
async function untilProcess(l3 = WRITE_PLAN) {
  h.anthropic.enqueue(l1Ok(), l2Ok(), jsonReply(l3));
  const started = h.startTask();
  await decide(h, started.taskId, "prompt", 1, "approve");
  return started;
}

const employeeReads = () => h.freee.apiRequests(/^\/hr\/api\/v1\/employees\/1$/).length;

describe("PreviewProcess: before → after, before approval", () => {
  it("the Process card shows the change read from freee before it offers 承認; the preview is stored on the version", async () => {
    const { execution, taskId } = await untilProcess();
    await decide(h, taskId, "process", 1, "approve");
    await execution.done;
    expect(execution.status).toBe("SUCCEEDED");
    expect(path(execution)).toEqual(expect.arrayContaining(["GenerateProcess", "PreviewProcess", "AwaitProcessApproval"]));
    const order = path(execution);
    expect(order.indexOf("PreviewProcess")).toBe(order.indexOf("GenerateProcess") + 1);
    // A plan that writes is never approved by the policy alone: the Choice sends it to the wait.
    expect(order.indexOf("ProcessApprovedByPolicy?")).toBe(order.indexOf("PreviewProcess") + 1);
    expect(order.indexOf("AwaitProcessApproval")).toBe(order.indexOf("PreviewProcess") + 2);
    // The first card with an approve button already carries the before → after.
    const firstApprovable = slackTexts(h).find((t) => t.includes("approve_version") && t.includes("実行ステップ"));
    expect(firstApprovable).toContain(ROW);
    const history = await h.store.loadHistory(taskId);
    const process = history.processes[0]!;
    expect(process.preview).toMatchObject({ status: "ready", steps: [{ stepId: "s2", summary: SUMMARY, current: "read" }] });
    expect(history.audit.find((a) => a.action === "process.previewed")?.details).toMatchObject({ status: "ready", writeSteps: 1, problems: [] });
  });

  it("a rejected Process is previewed again after L3 regenerates it", async () => {
    const { execution, taskId } = await untilProcess();
    h.anthropic.enqueue(jsonReply(WRITE_PLAN));
    await decide(h, taskId, "process", 1, { reject: "適用月を確認して" });
    await decide(h, taskId, "process", 2, "approve");
    await execution.done;
    expect(entriesOf(execution, "PreviewProcess")).toBe(2);
    const history = await h.store.loadHistory(taskId);
    expect(history.processes.map((p) => p.preview?.status)).toEqual(["ready", "ready"]);
  });
});

describe("names from the request, resolved before approval", () => {
  const named = (name: string) => ({
    steps: [
      { stepId: "s1", order: 1, tool: "freee_hr_update_basic_pay_rule", effect: "write", toolInput: JSON.stringify({ year: 2027, month: 1, pay_calc_type: "monthly", pay_amount: 300_000 }), nameRefs: [{ field: "employee_id", name }] },
    ],
  });

  it("「山田さん」 from L3 becomes employee 1 on the stored step: what runs is what the card showed", async () => {
    const { execution, taskId } = await untilProcess(named("山田さん"));
    await decide(h, taskId, "process", 1, "approve");
    await execution.done;
    expect(execution.status).toBe("SUCCEEDED");
    const process = (await h.store.loadHistory(taskId)).processes[0]!;
    expect(process.steps?.[0]).toMatchObject({ toolInput: { employee_id: 1, pay_amount: 300_000 }, nameRefs: [{ field: "employee_id", name: "山田さん" }] });
    const approvable = slackTexts(h).find((t) => t.includes("approve_version") && t.includes("実行ステップ"));
    expect(approvable).toContain(ROW);
    expect(approvable).toContain("名前: 「山田さん」→ 山田 太郎（ID 1）");
  });

  it("an ambiguous name stops at the card (only 却下); the reason and the problem reach L3; v2 settles it", async () => {
    const company = h.freee.company(101);
    company.employees.push({ id: 7, num: "007", display_name: "山田 花子", entry_date: "2024-04-01", retire_date: null, payRules: [] });
    try {
      const { execution, taskId } = await untilProcess(named("山田さん"));
      await h.local.waitFor(() => h.local.pendingTokens().find((p) => p.executionName === taskId && p.stateName === "AwaitProcessApproval"), 10_000, "process approval");
      const card = slackTexts(h).filter((t) => t.includes("実行ステップ v1")).at(-1)!;
      expect(card).toContain("「山田さん」に一致する従業員が 2 名あります（山田 太郎、山田 花子）");
      expect(card).not.toContain("approve_version");
      expect(card).not.toContain("review_full_plan");
      expect(card).toContain("reject_version");
      const before = h.anthropic.requests.length;
      h.anthropic.enqueue(jsonReply(named("山田 太郎")));
      await decide(h, taskId, "process", 1, { reject: "山田 太郎さんです" });
      await decide(h, taskId, "process", 2, "approve");
      await execution.done;
      expect(execution.status).toBe("SUCCEEDED");
      const l3Request = JSON.stringify(h.anthropic.requests[before]?.body);
      expect(l3Request).toContain("山田 太郎さんです");
      expect(l3Request).toContain("一致する従業員が 2 名あります");
      const history = await h.store.loadHistory(taskId);
      expect(history.processes.map((p) => p.preview?.status)).toEqual(["blocked", "ready"]);
      expect(history.processes[1]?.steps?.[0]?.toolInput.employee_id).toBe(1);
    } finally {
      company.employees.pop();
    }
  });
});

describe("PreviewProcess error-table rows", () => {
  it("freee 接続エラー: the workspace's freee refresh answers invalid_grant → AuthError, no retry → the freee message", async () => {
    h.freee.expireAccessTokens();
    h.freee.revokeRefreshTokens();
    const { execution, taskId } = await untilProcess();
    await expectPipelineFailure(h, execution, taskId, {
      state: "PreviewProcess",
      retries: 0,
      errorName: "AuthError",
      layer: "L3",
      message: SlackMessages.freeeConnectionFailed,
      version: { kind: "process", version: 1 },
    });
    expect(path(execution)).toContain("PreviewFailed");
    expect(path(execution)).not.toContain("AwaitProcessApproval");
  });

  it("freee 5xx (the client retries nothing itself): PreviewProcess retried 3 times, then caught", async () => {
    h.freee.fail({ method: "GET", path: "/hr/api/v1/employees/1" }, { status: 503 }, 4);
    const { execution, taskId } = await untilProcess();
    await expectPipelineFailure(h, execution, taskId, { state: "PreviewProcess", retries: 3, errorName: "UpstreamServerError", layer: "L3", message: SlackMessages.l3Failed, version: { kind: "process", version: 1 } });
    expect(employeeReads()).toBeGreaterThanOrEqual(4);
  });

  it("一時的エラー → 自動リトライ → 成功: one freee 429, the state is retried once and the card follows", async () => {
    h.freee.fail({ method: "GET", path: "/hr/api/v1/employees/1" }, { status: 429, headers: { "retry-after": "0" } }, 1);
    const { execution, taskId } = await untilProcess();
    await decide(h, taskId, "process", 1, "approve");
    await execution.done;
    expect(execution.status).toBe("SUCCEEDED");
    expect(retriesOf(execution, "PreviewProcess")).toBe(1);
    expect(failuresOf(execution, "PreviewProcess")).toEqual(["RateLimitedError"]);
    expect((await h.store.getVersion("process", taskId, 1))?.preview?.steps[0]?.summary).toBe(SUMMARY);
  });

  it("timeout row: a freee read that times out is retried 2 times, then caught", async () => {
    h.freee.fail({ method: "GET", path: "/hr/api/v1/employees/1" }, { delayMs: 1_000 }, 3);
    const { execution, taskId } = await untilProcess();
    await expectPipelineFailure(h, execution, taskId, { state: "PreviewProcess", retries: 2, errorName: "UpstreamTimeoutError", layer: "L3", message: SlackMessages.l3Failed, version: { kind: "process", version: 1 } });
  });

  it("a Lambda killed by its timeout (Sandbox.Timedout) is retried like a transient error; the second attempt previews", async () => {
    const timedOut = Object.assign(new Error("Task timed out after 330.00 seconds"), { name: "Sandbox.Timedout" });
    h.failInvocation("preview-process", timedOut);
    const { execution, taskId } = await untilProcess();
    await decide(h, taskId, "process", 1, "approve");
    await execution.done;
    expect(execution.status).toBe("SUCCEEDED");
    expect(retriesOf(execution, "PreviewProcess")).toBe(1);
  });

  it("404 on the current value is not a failure: the card says it could not be read, and approval stays possible", async () => {
    h.freee.fail({ method: "GET", path: "/hr/api/v1/employees/1/basic_pay_rule" }, { status: 404 }, 1);
    const { execution, taskId } = await untilProcess();
    await decide(h, taskId, "process", 1, "approve");
    await execution.done;
    expect(execution.status).toBe("SUCCEEDED");
    expect(retriesOf(execution, "PreviewProcess")).toBe(0);
    const approvable = slackTexts(h).find((t) => t.includes("approve_version") && t.includes("実行ステップ"));
    expect(approvable).toContain("現在の基本給を freee から読み取れませんでした");
  });
});
