import { beforeAll, describe, expect, it } from "vitest";
import { checkBlocks, checkView } from "../../dev/fakes/slack/block-kit";
import type { Execution, ProcessVersion, StepProgress } from "../../lib/core/domain/records";
import { ExecutionCardTexts as T, freeeRateLimitedMessage, freeeThrottledMessage } from "../../lib/core/messages/ja";
import { RunGuidanceTexts } from "../../lib/core/messages/run-guidance";
import { rerunRefusal } from "../../lib/ingress/cards/failure-guidance";
import { slackLength } from "../../lib/core/messages/mrkdwn";
import { ActionIds, renderCard, type Card } from "../../lib/ingress/cards";
import { buildStepInputModal } from "../../lib/ingress/plan-modal";
import { errorNote } from "../../lib/model/agent/step-results";
import { buildPreview } from "../../lib/preview/build";
import { PlanMessages } from "../../lib/preview/plan";
import type { StepWithNames } from "../../lib/preview/names";
import { FreeeReader } from "../../lib/preview/reader";
import { usePreviewFreee } from "../preview/support";
import { DEFAULT_APPROVAL_POLICY, snapshotRule } from "../../lib/core/domain/approval-policy";
import { planFacts, planWarnings } from "../../lib/steps/approval-facts";
import { baseTask, execution, history, processVersion } from "./fixtures";

/**
 * Cards an accountant can sign, built from previews the strict freee fake answered: the Process card's change
 * table in Japanese with its warnings (each its own ⚠️ line, again in the approve button's confirm dialog), and the
 * Execution card restating the table with each row's outcome and freee link on 完了 / 失敗 / 中止 / unknown, with
 * what to do after a 403 / 404 / 429. No internals on any card: tool names, step ids, token counts, shortcodes.
 */
const f = usePreviewFreee();
let version: ProcessVersion;
const NOW = new Date("2026-12-02T03:00:00Z"); // 2026-12-02 12:00 JST
const limits = { maxReruns: 3 };

const pay = (order: number, name: string, amount: number): StepWithNames => ({
  stepId: `s${order}`,
  order,
  tool: "freee_hr_update_basic_pay_rule",
  toolInput: { year: 2027, month: 1, pay_calc_type: "monthly", pay_amount: amount },
  nameRefs: [{ field: "employee_id", name }],
});
const PLAN: StepWithNames[] = [
  { stepId: "s1", order: 1, tool: "freee_hr_list_employees", toolInput: { year: 2027, month: 1 } },
  pay(2, "佐藤さん", 250_000),
  pay(3, "鈴木さん", 280_000),
  pay(4, "高橋さん", 340_000),
];

beforeAll(async () => {
  const outcome = await buildPreview(PLAN, new FreeeReader(f.client()), NOW);
  version = processVersion(1, { status: "pending_approval", steps: outcome.steps, preview: outcome.preview });
});

/** Every text a person reads on a surface (not action ids or button values). */
function visible(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) visible(n, out);
  else if (node !== null && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "value" || k === "action_id" || k === "block_id" || k === "private_metadata" || k === "callback_id") continue;
      if (k === "text" && typeof v === "string") out.push(v);
      else visible(v, out);
    }
  }
  return out;
}
const shown = (card: Card) => visible(card.blocks).join("\n");

/** What no card may show: tool names, step ids, token counts, emoji shortcodes Slack would not render as such. */
function expectNoInternals(text: string) {
  expect(text).not.toMatch(/freee_(hr|accounting|api)_\w+|agent_decide/);
  expect(text).not.toMatch(/(?<![A-Za-z0-9])s\d+(?![A-Za-z0-9])/);
  expect(text).not.toContain("トークン");
  expect(text).not.toContain(":no_entry:");
}

const processCard = (v: ProcessVersion = version) => renderCard(history({ task: baseTask({ status: "process_review", currentProcessVersion: 1 }), processes: [v] }), { kind: "process" }, limits);

function approveButton(card: Card) {
  for (const b of card.blocks as { type: string; elements?: { action_id?: string; confirm?: { title: { text: string }; text: { text: string } } }[] }[]) {
    const button = b.elements?.find((e) => e.action_id === ActionIds.approve);
    if (button !== undefined) return button;
  }
  throw new Error("no approve button");
}

describe("the Process card: a change table in Japanese, warnings an approver cannot miss", () => {
  it("佐藤 320,000円 → 250,000円 and 鈴木 時給 → 月給 as table rows with 差額 and 適用, the company, 入力 JSON per step", () => {
    const card = processCard();
    expect(checkBlocks(card.blocks, "message")).toEqual([]);
    const text = shown(card);
    expect(text).toContain("_対象 ｜ 項目 ｜ 現在 → 変更後 ｜ 差額 ｜ 適用_");
    expect(text).toContain("従業員 佐藤 花子 ｜ 基本給 ｜ 320,000円 → 250,000円 ｜ -70,000円（-21.9%） ｜ 2027年1月支給分から");
    expect(text).toContain("従業員 鈴木 一郎 ｜ 給与形態 ｜ 時給 → 月給 ｜ — ｜ 2027年1月支給分から");
    expect(text).toContain("従業員 鈴木 一郎 ｜ 基本給 ｜ 1,500円 → 280,000円 ｜ — ｜ 2027年1月支給分から");
    expect(text).toContain("*対象の事業所: テスト株式会社*");
    // A button per step opens its raw input.
    expect(JSON.stringify(card.blocks).match(new RegExp(`"action_id":"${ActionIds.showInput}"`, "g"))).toHaveLength(3);
    // The read says what it reads, in words.
    expect(text).toContain("2027年1月");
    expectNoInternals(text);
    // Each step's title once (no heading repeated by its summary).
    expect(text.match(/\d\. 基本給の変更/g)).toEqual(["2. 基本給の変更", "3. 基本給の変更", "4. 基本給の変更"]); // 4.: the dropped one
  });

  it("a decrease, a change above 20%, a pay type change: each its own ⚠️ line on the card", () => {
    const lines = shown(processCard()).split("\n");
    const warned = lines.filter((l) => l.startsWith("⚠️ "));
    expect(warned).toContain("⚠️ 従業員 佐藤 花子 の基本給が下がります: 320,000円 → 250,000円（-70,000円（-21.9%））。");
    expect(warned.some((l) => l.startsWith("⚠️ 従業員 佐藤 花子 の基本給の変更が大きい: -70,000円（-21.9%）（確認の基準: 20% または 1,000,000円 以上）"))).toBe(true);
    expect(warned).toContain("⚠️ 従業員 鈴木 一郎 の給与形態が変わります: 時給 → 月給（単位が違うため金額の差は比べられません）。");
    expect(lines).toContain("⚠️ 確認が必要な点が 3 件あります（各ステップと、承認の確認画面に表示します）。");
  });

  it("340,000円 → 340,000円 is taken out with a note: not a step of the plan, never approved", () => {
    expect(version.steps?.map((s) => s.stepId)).toEqual(["s1", "s2", "s3"]);
    const text = shown(processCard());
    expect(text).toContain("*プランから外したステップ*");
    expect(text).toContain("⚠️ 4. 基本給の変更（従業員 高橋 美咲 基本給 340,000円 → 340,000円）は freee の現在の値と同じため、プランから外しました。承認しても実行されません。");
  });

  it("the approve button's confirm dialog repeats every warning, one a line, within Slack's 300 characters", () => {
    const confirm = approveButton(processCard()).confirm!;
    expect(confirm.title.text).toBe("警告を確認してください");
    expect(confirm.text.text.split("\n")).toEqual([
      "次の点を確認してから承認してください。",
      "⚠️ 減額 -70,000円（-21.9%）: 従業員 佐藤 花子 基本給",
      "⚠️ 大きな変更 -21.9%: 従業員 佐藤 花子 基本給",
      "⚠️ 給与形態の変更（時給 → 月給）: 従業員 鈴木 一郎",
      // What the approval does not include, said too.
      "⚠️ 変更なしのため除外: 従業員 高橋 美咲",
    ]);
    expect(slackLength(confirm.text.text)).toBeLessThanOrEqual(300);
  });

  it("more warnings than 300 characters hold: as many as fit, the rest counted, never cut mid-line", async () => {
    const many = Array.from({ length: 12 }, (_, i) => pay(i + 1, "佐藤さん", 100_000 + i));
    const outcome = await buildPreview(many, new FreeeReader(f.client()), NOW);
    const card = processCard(processVersion(1, { status: "pending_approval", steps: outcome.steps, preview: outcome.preview }));
    expect(checkBlocks(card.blocks, "message")).toEqual([]);
    const text = approveButton(card).confirm!.text.text;
    expect(slackLength(text)).toBeLessThanOrEqual(300);
    const lines = text.split("\n");
    const warned = lines.filter((l) => l.startsWith("⚠️ "));
    expect(warned.length).toBeGreaterThan(2);
    expect(lines.at(-1)).toBe(`ほか ${24 - warned.length} 件はカードに表示しています。`);
  });

  it("入力 JSON: the raw input, headed by the step's number and title", () => {
    const modal = buildStepInputModal(version, ["s2"]);
    expect(checkView(modal)).toEqual([]);
    const text = visible(modal.blocks).join("\n");
    expect(text).toMatch(/^\*2\. 基本給の変更\*\n```\{/);
    expect(text).toContain('"pay_amount": 250000');
    expect(text).toContain('"employee_id": 2');
    expect(text).not.toContain("freee_hr_update_basic_pay_rule");
  });
});

describe("the same plan in a public channel: masked in Japanese words", () => {
  // The snapshot the approval step takes for a card in a public channel: an HR write is masked.
  const masked = (v: ProcessVersion) => ({ ...v, approvableVia: ["full_plan" as const], approvalRule: snapshotRule(DEFAULT_APPROVAL_POLICY, planFacts(v, planWarnings(v)), NOW.toISOString(), { publicChannel: true }) });

  it("each change by number and whom, its warnings by kind, the dropped step by whom: no amount, no step id, no shortcode", () => {
    const card = processCard(masked(version));
    expect(checkBlocks(card.blocks, "message")).toEqual([]);
    const text = shown(card);
    expect(text).toContain("2. 佐藤 花子 基本給の変更 — 金額は承認できる人にだけ表示されます\n⚠️ 確認が必要な点: 減額、大きな変更（内容は「全体を確認して承認」で表示されます）");
    expect(text).toContain("3. 鈴木 一郎 基本給の変更 — 金額は承認できる人にだけ表示されます\n⚠️ 確認が必要な点: 給与形態の変更（内容は「全体を確認して承認」で表示されます）");
    expect(text).toContain("プランから外したステップ（freee の現在の値と同じで、何も変わらないため実行しません）: 4. 基本給の変更（従業員 高橋 美咲）");
    expect(text).toContain("*対象の事業所: テスト株式会社*");
    expect(text).not.toMatch(/\d{1,3},\d{3}円|時給|月給/);
    expectNoInternals(text);
    expect(JSON.stringify(card.blocks)).toContain(`"action_id":"${ActionIds.reviewPlan}"`);
    expect(JSON.stringify(card.blocks)).not.toContain(`"action_id":"${ActionIds.approve}"`);
  });

  it("a name freee does not know: ⛔ and the step's number, only 却下", async () => {
    const outcome = await buildPreview([pay(1, "存在しない人", 300_000)], new FreeeReader(f.client()), NOW);
    expect(outcome.preview.status).toBe("blocked");
    const card = processCard(masked(processVersion(1, { status: "pending_approval", steps: outcome.steps, preview: outcome.preview })));
    const text = shown(card);
    expect(text).toContain(`⛔ ${PlanMessages.blocked}（ステップ 1）`);
    expect(text).toContain("*承認待ち (v1)* — 却下のみできます");
    expectNoInternals(text);
    expect(JSON.stringify(card.blocks)).not.toContain(`"action_id":"${ActionIds.reviewPlan}"`);
  });

  it("every write a no-op, a read left: still an HR card, masked — ⛔ says nothing would change, only 却下", async () => {
    const outcome = await buildPreview([PLAN[0]!, pay(2, "高橋さん", 340_000)], new FreeeReader(f.client()), NOW);
    expect(outcome.preview.status).toBe("no_changes");
    // The plan left reads only, but its card would show 高橋's pay: the dropped write keeps it an HR write plan.
    const v = masked(processVersion(1, { status: "pending_approval", steps: outcome.steps, preview: outcome.preview }));
    expect(v.approvalRule).toMatchObject({ writeDomains: ["hr"], maskAmounts: true });
    const text = shown(processCard(v));
    expect(text).toContain(`⛔ ${PlanMessages.noChanges}`);
    expect(text).toContain("2. 基本給の変更（従業員 高橋 美咲）");
    expect(text).not.toContain("340,000");
    expectNoInternals(text);
  });
});

const step = (stepId: string, patch: Partial<StepProgress> = {}): StepProgress => ({ stepId, state: "done", okCalls: 1, errorCalls: 0, ...patch });
const progress = (steps: StepProgress[], lastEventAt = "2026-12-02T03:00:00.000Z") => ({ seenEventIds: [], completedSteps: 0, toolErrors: [], steps, lastEventAt });
const writes = (patch: Partial<NonNullable<Execution["writes"]>> = {}) => ({ done: [], earlier: [], unknown: [], records: [], readAt: "x", ...patch });
const FORBIDDEN = errorNote("freee API が権限不足のためリクエストを拒否しました (403)。アプリの権限（スコープ）か、freee 上のユーザーの権限が足りません。");
const NOT_FOUND = errorNote("freee に該当するデータが見つかりません (404)。ID や日付を確認してください。");
const RATE_LIMITED = errorNote(freeeRateLimitedMessage(300));

function executionCard(e: Partial<Execution>, status: "executing" | "failed" | "completed" = "failed") {
  const approved = { ...version, status: "approved" as const };
  const h = history({ task: baseTask({ status, executionCount: 1, currentProcessVersion: 1, approvedProcessVersion: 1 }), processes: [approved], executions: [execution(1, { company: { id: 101, name: "テスト株式会社" }, usage: { inputTokens: 500, outputTokens: 200, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 }, ...e })] });
  const card = renderCard(h, { kind: "execution", executionNo: 1 }, limits);
  expect(checkBlocks(card.blocks, "message")).toEqual([]);
  return card;
}
const hasRerun = (card: Card) => JSON.stringify(card.blocks).includes(`"action_id":"${ActionIds.rerun}"`);
const HEAD = "_結果 ｜ 対象 ｜ 項目 ｜ 現在 → 変更後 ｜ 差額 ｜ 適用_";
const SATO = "従業員 佐藤 花子 ｜ 基本給 ｜ 320,000円 → 250,000円 ｜ -70,000円（-21.9%） ｜ 2027年1月支給分から";
const SUZUKI = "従業員 鈴木 一郎 ｜ 給与形態 ｜ 時給 → 月給 ｜ — ｜ 2027年1月支給分から";

describe("the Execution card restates the table with each row's outcome", () => {
  it("完了: every row ✓ with its freee link and the company; no token counts", () => {
    const text = shown(
      executionCard(
        { status: "completed", progress: progress([step("s1"), step("s2"), step("s3")]), writes: writes({ done: ["s2", "s3"], records: [{ stepId: "s2", kind: "employee", id: 2 }, { stepId: "s3", kind: "employee", id: 3 }] }) },
        "completed",
      ),
    );
    expect(text).toContain(`*${T.changedHead}*（対象の事業所: テスト株式会社）\n${HEAD}\n*2. 基本給の変更* <https://p.secure.freee.co.jp/employees/2|freee で開く>\n✓ ｜ ${SATO}`);
    expect(text).toContain(`*3. 基本給の変更* <https://p.secure.freee.co.jp/employees/3|freee で開く>\n✓ ｜ ${SUZUKI}`);
    expect(text).toContain(T.nothingElse);
    expect(text).toContain(T.dropped(["4. 基本給の変更（従業員 高橋 美咲）"]));
    expectNoInternals(text);
  });

  it("a write that may have landed: 確認が必要 on its rows with the employee's page, never 「freee への書き込みはありません」", () => {
    const text = shown(executionCard({ status: "failed", errorName: "WriteOutcomeUnknownError", progress: progress([step("s1"), step("s2", { state: "failed", note: "エラー: freee API が一時的に応答しません。" })]), writes: writes({ unknown: ["s2"] }) }));
    expect(text).toContain(`*2. 基本給の変更* <https://p.secure.freee.co.jp/employees/2|freee で開く>\n確認が必要 ｜ ${SATO}`);
    expect(text).toContain(`未実行 ｜ ${SUZUKI}`);
    expect(text).toContain(T.unknownWrites);
    expect(text).not.toMatch(new RegExp(`(?<!このほかに )${T.noWrites}`));
    expect(text).toContain("*freee で確認が必要なステップ*: 2");
    expectNoInternals(text);
  });

  it("without the write ledger a tried write is 確認が必要, and no 「書き込みはありません」 is claimed", () => {
    const text = shown(executionCard({ status: "failed", errorName: "IncompleteRunError", progress: progress([step("s1"), step("s2")]) }));
    expect(text).toContain(`確認が必要 ｜ ${SATO}`);
    expect(text).toContain(T.writesUnreadable);
    expect(text).not.toMatch(new RegExp(`(?<!このほかに )${T.noWrites}`));
  });

  it("中止: the rows not reached are 未実行; the step cut short is not counted as run", () => {
    const text = shown(executionCard({ status: "cancelled", cancelFinalizedAt: "x", cancelledBy: "UREQ", progress: progress([step("s1"), step("s2", { state: "running", okCalls: 0 })]), writes: writes() }));
    expect(text).toContain(`✗ ｜ ${SATO}`);
    expect(text).toContain(`未実行 ｜ ${SUZUKI}`);
    expect(text).toContain(T.noWrites);
    expect(text).toContain("*実行したステップ*: 1\n*失敗したステップ*: 2\n*実行しなかったステップ*: 3");
    expectNoInternals(text);
  });
});

describe("failure cards that guide", () => {
  const failed = (note: string) => executionCard({ status: "failed", errorName: "IncompleteRunError", progress: progress([step("s1"), step("s2", { state: "failed", okCalls: 0, errorCalls: 1, note })]), writes: writes(), completion: { writeStepsDone: [], writeStepsMissing: ["s2", "s3"], reported: "incomplete", judgedAt: "x" } });

  it("403: the missing permission, and no [再実行] (a rerun meets the same refusal)", () => {
    const card = failed(FORBIDDEN);
    const text = shown(card);
    expect(text).toContain("ℹ️ freee が権限不足のため「2. 基本給の変更」を拒否しました (403)。足りない権限: freee 人事労務の「給与（基本給）」の更新。");
    expect(hasRerun(card)).toBe(false);
    // Only the read ran; the refused write failed, the last one never started.
    expect(text).toContain("*実行したステップ*: 1\n*失敗したステップ*: 2\n*実行しなかったステップ*: 3");
    expect(text).toContain("完了していない書き込みステップ: 2. 基本給の変更、3. 基本給の変更");
    expect(text).toContain(`✗ ｜ ${SATO}`);
    expectNoInternals(text);
  });

  it("404: names what freee did not find; [再実行] stays", () => {
    const card = failed(NOT_FOUND);
    expect(shown(card)).toContain("ℹ️ freee に見つかりませんでした (404): 「2. 基本給の変更」の対象（従業員 佐藤 花子、2027年1月支給分から）。");
    expect(hasRerun(card)).toBe(true);
  });

  it("429: when to try again, in JST, from freee's wait", () => {
    const card = failed(RATE_LIMITED);
    // 12:00 JST + 5 minutes.
    expect(shown(card)).toContain("ℹ️ freee API の利用回数制限に達したため止まりました (429)。12:05（日本時間）以降に [再実行] してください。");
    expect(hasRerun(card)).toBe(true);
  });

  it("freee's 403 throttle is not a missing permission: no permission line, [再実行] stays, a rerun is not refused", () => {
    const card = failed(errorNote(freeeThrottledMessage("2026-12-02T03:10:00.000Z")));
    expect(shown(card)).not.toContain("足りない権限");
    expect(hasRerun(card)).toBe(true);
    const approved = { ...version, status: "approved" as const };
    expect(rerunRefusal(approved, execution(1, { status: "failed", errorName: "FreeeThrottledError", progress: progress([step("s1"), step("s2", { state: "failed", okCalls: 0, errorCalls: 1, note: errorNote(freeeThrottledMessage(undefined)) })]) }))).toBeUndefined();
    expect(rerunRefusal(approved, execution(1, { status: "failed", errorName: "IncompleteRunError", progress: progress([step("s1"), step("s2", { state: "failed", okCalls: 0, errorCalls: 1, note: FORBIDDEN })]) }))).toBe(
      RunGuidanceTexts.rerunRefused("2. 基本給の変更", "freee 人事労務の「給与（基本給）」の更新"),
    );
  });

  it("a failure freee did not refuse gets no guidance line", () => {
    const text = shown(failed("エラー: freee API が一時的に応答しません。再試行しても失敗しました。"));
    expect(text).not.toContain("ℹ️");
  });
});
