import { describe, expect, it } from "vitest";
import { checkBlocks } from "../../dev/fakes/slack/block-kit";
import type { Execution, ProcessStep, StepProgress } from "../../lib/core/domain/records";
import type { PreviewStep } from "../../lib/core/domain/preview";
import { ExecutionCardTexts, FreeeThrottledMessages } from "../../lib/core/messages/ja";
import { renderCard, type Card } from "../../lib/ingress/cards";
import { baseTask, execution, history, processVersion } from "./fixtures";

/**
 * Issue 16: the Execution card says, step by step, where the run stands and what it did; once ended, what
 * changed in freee (the preview's before → after of each write the ledger recorded done, with a link) and what
 * the reads returned; a stopped run says which steps ran and what was written. Block Kit's limits hold for any
 * plan and any result (checked with the strict Slack fake's own validator).
 */
const limits = { maxReruns: 3 };
const text = (card: Card) => JSON.stringify(card.blocks);

const STEPS: ProcessStep[] = [
  { stepId: "s1", order: 1, tool: "freee_hr_list_employees", toolInput: { year: 2026, month: 12 } },
  { stepId: "s2", order: 2, tool: "agent_decide", toolInput: { instruction: "山田さんを特定" }, readScope: { tools: ["freee_hr_get_employee"] } },
  { stepId: "s3", order: 3, tool: "freee_hr_update_basic_pay_rule", toolInput: { year: 2026, month: 12, employee_id: 7, pay_calc_type: "monthly", pay_amount: 300000 } },
];
const PREVIEW: PreviewStep = {
  stepId: "s3",
  tool: "freee_hr_update_basic_pay_rule",
  title: "基本給の変更",
  summary: "山田 太郎 基本給 280,000円 → 300,000円（2026年12月から）",
  details: [],
  changes: [{ label: "基本給", before: "280,000円", after: "300,000円" }],
  current: "read",
  resolved: [],
  warnings: [],
  problems: [],
};
const process = processVersion(1, { status: "approved", steps: STEPS, preview: { status: "ready", previewedAt: "2026-12-01T00:00:00Z", steps: [PREVIEW], reads: 1 } });
const step = (stepId: string, patch: Partial<StepProgress> = {}): StepProgress => ({ stepId, state: "done", okCalls: 1, errorCalls: 0, ...patch });
const TABLE = { label: "従業員", columns: ["ID", "表示名"], rows: [["7", "山田 太郎"], ["8", "佐藤 花子"]], total: 2 };
const card = (e: Partial<Execution>, steps = process) =>
  renderCard(history({ task: baseTask({ status: "executing", executionCount: 1, approvedProcessVersion: 1 }), processes: [steps], executions: [execution(1, e)] }), { kind: "execution", executionNo: 1 }, limits);
const progress = (steps: StepProgress[], patch: Partial<NonNullable<Execution["progress"]>> = {}) => ({ seenEventIds: [], completedSteps: 0, toolErrors: [], steps, ...patch });

describe("Execution card: one line per step", () => {
  it("running: ✓ for the finished read with its result, 実行中 for the current step, 待機 for the rest; no finished tool named as running", () => {
    const c = card({ status: "running", progress: progress([step("s1", { note: "従業員 2 件を取得しました", table: TABLE }), step("s2", { state: "running", okCalls: 0 })], { currentStepId: "s2" }) });
    const t = text(c);
    expect(t).toContain("✓  1. 指定した年月に在籍する従業員の一覧を取得します — 従業員 2 件を取得しました");
    expect(t).toContain("実行中  2. エージェントの判断");
    expect(t).toContain("待機  3. 基本給の変更");
    expect(t).toContain("進捗: 1 / 3 ステップ");
    expect(t).not.toContain("実行中のツール");
    expect(checkBlocks(c.blocks, "message")).toEqual([]);
  });

  it("completed: what changed in freee (before → after, linked to the employee), the read as a table, every step ✓", () => {
    const c = card({
      status: "completed",
      resultSummary: "基本給を更新しました。",
      progress: progress([step("s1", { note: "従業員 2 件を取得しました", table: TABLE }), step("s2", { note: "判断しました" }), step("s3", { note: "freee に書き込みました" })]),
      writes: { done: ["s3"], earlier: [], unknown: [], records: [{ stepId: "s3", kind: "employee", id: 7 }], readAt: "x" },
    });
    const t = text(c);
    // A preview stored before the change table: the row is its summary.
    expect(t).toContain(`*${ExecutionCardTexts.changedHead}*\\n_結果 ｜ 対象 ｜ 項目 ｜ 現在 → 変更後 ｜ 差額 ｜ 適用_\\n*3. 基本給の変更* <https://p.secure.freee.co.jp/employees/7|freee で開く>\\n✓ ｜ 山田 太郎 基本給 280,000円 → 300,000円（2026年12月から）`);
    expect(t).toContain(ExecutionCardTexts.nothingElse);
    expect(t).toContain("*1. 従業員（2 件）*\\n*ID* ／ *表示名*\\n• 7 ／ 山田 太郎\\n• 8 ／ 佐藤 花子");
    expect(t).toContain("✓  3. 基本給の変更 — freee に書き込みました");
    expect(checkBlocks(c.blocks, "message")).toEqual([]);
  });

  it("a write the agent called done but the ledger does not show is ✗, not ✓ (the MCP server's record decides)", () => {
    const c = card({ status: "failed", errorName: "IncompleteRunError", progress: progress([step("s1"), step("s2"), step("s3")]), writes: { done: [], earlier: [], unknown: [], records: [], readAt: "x" } });
    expect(text(c)).toContain(`✗  3. 基本給の変更 — ${ExecutionCardTexts.notRecorded}`);
    expect(text(c)).toContain(ExecutionCardTexts.noWrites);
  });

  it("freee's 403 throttle: the message, and when freee lifts it in Japan time (from the run's fault)", () => {
    const fault = { errorName: "FreeeThrottledError" as const, at: "2026-12-01T05:00:00.000Z", tool: "freee_hr_list_employees", reason: "until 2026-12-01T05:10:00.000Z" };
    const c = card({ status: "failed", errorName: "FreeeThrottledError", fault, progress: progress([step("s1", { state: "failed", okCalls: 0, errorCalls: 1 })]) });
    expect(text(c)).toContain(FreeeThrottledMessages.slack);
    expect(text(c)).toContain("freee の制限が解ける目安: 14:10（日本時間）。それ以降に [再実行] してください。");
    expect(checkBlocks(c.blocks, "message")).toEqual([]);
    // A fault without the time (an older run) keeps the message alone.
    expect(text(card({ status: "failed", errorName: "FreeeThrottledError", fault: { ...fault, reason: undefined } }))).not.toContain("目安");
  });

  it("cancelled: which steps ran, which did not, and that nothing was written", () => {
    const c = card({
      status: "cancelled",
      cancelledBy: "UREQ",
      cancelFinalizedAt: "x",
      progress: progress([step("s1"), step("s2", { state: "running", okCalls: 0 })]),
      writes: { done: [], earlier: [], unknown: [], records: [], readAt: "x" },
    });
    const t = text(c);
    // The step cut short by the cancel did not finish: it is not counted as run.
    expect(t).toContain("*実行したステップ*: 1\\n*失敗したステップ*: 2\\n*実行しなかったステップ*: 3");
    expect(t).toContain(`✗  2. エージェントの判断 — ${ExecutionCardTexts.stoppedByCancel}`);
    expect(t).toContain("未実行  3. 基本給の変更");
    // The approved write is restated with its outcome, and nothing was written.
    expect(t).toContain(`*${ExecutionCardTexts.writtenBeforeStopHead}*\\n_結果 ｜ 対象 ｜ 項目 ｜ 現在 → 変更後 ｜ 差額 ｜ 適用_\\n*3. 基本給の変更* <https://p.secure.freee.co.jp/employees/7|freee で開く>\\n未実行 ｜ 山田 太郎 基本給 280,000円 → 300,000円（2026年12月から）\\n${ExecutionCardTexts.noWrites}`);
  });

  it("a rerun shows the write an earlier run did as done earlier", () => {
    const c = card({ status: "completed", progress: progress([step("s1"), step("s2")]), writes: { done: [], earlier: ["s3"], unknown: [], records: [], readAt: "x" } });
    expect(text(c)).toContain(`✓  3. 基本給の変更 — ${ExecutionCardTexts.doneEarlier}`);
  });
});

it("freee's text in a read table is escaped: a partner named <!channel> notifies nobody", () => {
  const table = { label: "取引先", columns: ["ID", "名前"], rows: [["1", "<!channel> & <@U123>"]], total: 1 };
  const c = card({ status: "completed", progress: progress([step("s1", { note: "取引先 1 件を取得しました", table })]) });
  expect(text(c)).toContain("• 1 ／ &lt;!channel&gt; &amp; &lt;@U123&gt;");
  expect(text(c)).not.toContain("<!channel>");
});

describe("Block Kit limits hold for long plans and long results", () => {
  const many: ProcessStep[] = Array.from({ length: 200 }, (_, i) => ({ stepId: `s${i + 1}`, order: i + 1, tool: "freee_accounting_create_deal", toolInput: { issue_date: "2026-12-01", type: "expense", details: [{ amount: 1000 + i }] } }));
  const big = processVersion(1, {
    status: "approved",
    steps: many,
    preview: { status: "ready", previewedAt: "x", steps: many.map((s) => ({ ...PREVIEW, stepId: s.stepId, tool: s.tool, title: "取引の登録".repeat(150), summary: `支出 ${s.order} 件目 ${"備品購入".repeat(20)}` })), reads: 0 },
  });
  const longTable = { label: "取引", columns: ["ID", "発生日", "金額", "取引先", "種別", "状態"], rows: Array.from({ length: 100 }, (_, i) => [String(i), "2026-12-01", "1,000", "あ".repeat(40), "expense", "settled"]), total: 100 };

  it("200 write steps, all done, and long read results: ≤ 50 blocks, every section ≤ 3,000 characters", () => {
    const steps = many.map((s) => step(s.stepId, { note: "freee に書き込みました".repeat(3), table: longTable }));
    const c = card(
      { status: "completed", resultSummary: "完了".repeat(2000), progress: progress(steps), writes: { done: many.map((s) => s.stepId), earlier: [], unknown: [], records: many.map((s, i) => ({ stepId: s.stepId, kind: "deal" as const, id: i + 1 })), readAt: "x" } },
      big,
    );
    expect(checkBlocks(c.blocks, "message")).toEqual([]);
    expect(text(c)).toContain("省略しました");
  });

  it("200 steps while running and after a cancel", () => {
    const steps = many.slice(0, 120).map((s) => step(s.stepId, { note: "エラー: ".concat("x".repeat(119)), state: "failed" }));
    for (const e of [{ status: "running" as const, progress: progress(steps) }, { status: "cancelled" as const, cancelFinalizedAt: "x", progress: progress(steps), writes: { done: many.slice(0, 100).map((s) => s.stepId), earlier: [], unknown: [], records: [], readAt: "x" } }]) {
      expect(checkBlocks(card(e, big).blocks, "message")).toEqual([]);
    }
  });
});
