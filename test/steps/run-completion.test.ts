import { describe, expect, it } from "vitest";
import type { ProcessStep } from "../../lib/core/domain/records";
import { AuthError, EmptyResponseError, IncompleteRunError, RefusedResponseError, SilentFailureError, TruncatedResponseError, WriteOutcomeUnknownError } from "../../lib/core/errors/taxonomy";
import { asIncomplete, faultError, judgeRunCompletion, namedByRefusal, type LedgerEntry } from "../../lib/steps/run-completion";
import { FreeeRefusalTexts } from "../../lib/core/messages/freee-refusals";
import { freeeRateLimitedMessage } from "../../lib/core/messages/ja";
import { renderCard } from "../../lib/ingress/cards";
import { baseTask, execution, history, processVersion } from "../ingress/fixtures";

/** The L4 completion contract as a pure judgement: the ledger's record of the writes, then the final message. */
const steps: ProcessStep[] = [
  { stepId: "s1", order: 1, tool: "freee_hr_get_basic_pay_rule", toolInput: { year: 2027, month: 1, employee_id: 1 } },
  { stepId: "s2", order: 2, tool: "freee_hr_update_basic_pay_rule", toolInput: { year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 300_000 } },
  { stepId: "s3", order: 3, tool: "freee_accounting_create_deal", toolInput: { issue_date: "2026-12-01", type: "expense", details: [{ account_item_id: 23, tax_code: 136, amount: 1 }] } },
];
const base = { tool: "t", digest: "d", marker: "m", executionId: "e1", attempt: 1, since: "2026-12-01T00:00:00Z", taskId: "T", processVersion: 1 };
const done = (stepId: string, processVersion = 1): LedgerEntry => ({ ...base, stepId, processVersion, state: "done", resultText: "{}", completedAt: "2026-12-01T00:00:01Z", how: "written" });
const unknown = (stepId: string): LedgerEntry => ({ ...base, stepId, state: "unknown", unknownSince: "2026-12-01T00:00:01Z", reason: "UpstreamTimeoutError" });
const judge = (ledger: LedgerEntry[], finalMessage: string) => judgeRunCompletion({ steps, processVersion: 1, ledger, finalMessage, now: new Date("2026-12-01T00:01:00Z") });

describe("judgeRunCompletion", () => {
  it("every approved write done + [result:done]: completed, the result line is not part of the summary", () => {
    const v = judge([done("s2"), done("s3")], "2 件を登録しました。\n[result:done]");
    expect(v.error).toBeUndefined();
    expect(v.summary).toBe("2 件を登録しました。");
    expect(v.completion).toMatchObject({ writeStepsDone: ["s2", "s3"], writeStepsMissing: [], reported: "done" });
  });

  it("a write done under another Process version does not count", () => {
    const v = judge([done("s2"), done("s3", 2)], "[result:done]");
    expect(v.error).toBeInstanceOf(IncompleteRunError);
    expect(v.completion.writeStepsMissing).toEqual(["s3"]);
  });

  it("a write whose outcome is unknown outranks a missing one: WriteOutcomeUnknownError (check freee first)", () => {
    const v = judge([unknown("s2")], "[result:incomplete]");
    expect(v.error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect(v.completion.writeStepsMissing).toEqual(["s2", "s3"]);
  });

  it.each([
    ["a question", "どちらの山田さんですか？", "ends with a question"],
    ["a cut-off message", "登録を完了し", "no result line"],
    ["a result line that is not the end", "[result:done] ただし s3 は", "no result line"],
  ])("all writes done but %s: IncompleteRunError (its cause a TruncatedResponseError)", (_n, text, why) => {
    const v = judge([done("s2"), done("s3")], text);
    expect(v.error).toBeInstanceOf(IncompleteRunError);
    expect(v.error).toBeInstanceOf(SilentFailureError);
    expect(v.error?.message).toContain(why);
    expect((v.error as Error).cause).toBeInstanceOf(TruncatedResponseError);
    expect(v.completion.reported).toBe("missing");
  });

  it("an empty message (whitespace only): IncompleteRunError caused by EmptyResponseError", () => {
    const v = judge([done("s2"), done("s3")], "  \n ");
    expect((v.error as Error).cause).toBeInstanceOf(EmptyResponseError);
  });

  it("asIncomplete wraps the poll's silent failures (refusal, empty) and leaves others as they are", () => {
    const refused = asIncomplete(new RefusedResponseError("refused")) as Error;
    expect(refused).toBeInstanceOf(IncompleteRunError);
    expect(refused.cause).toBeInstanceOf(RefusedResponseError);
    const auth = new AuthError("x", { service: "freee" });
    expect(asIncomplete(auth)).toBe(auth);
    expect(faultError({ errorName: "AuthError", tool: "freee_hr_update_basic_pay_rule", reason: "reauth_required", at: "t" }).name).toBe("AuthError");
  });
});

describe("an incomplete run named by what freee refused (the ledger counts 403 / 404 / 429 apart)", () => {
  const incomplete = () => judge([done("s2")], "[result:done]").error!;
  // As the session events keep them: whitespace folded, after the MCP server's own words.
  const said = (text: string) => ({ tool: "freee_accounting_create_deal", message: `${text} freee のメッセージ: x`.replace(/\s+/g, " ") });
  it("403 → FreeeForbiddenError, 404 → FreeeNotFoundError, 429 → FreeeRateLimitedError; still an incomplete run", () => {
    const cases = [
      [FreeeRefusalTexts.forbidden, "FreeeForbiddenError"],
      [FreeeRefusalTexts.notFound, "FreeeNotFoundError"],
      [freeeRateLimitedMessage(600), "FreeeRateLimitedError"],
      [freeeRateLimitedMessage(undefined), "FreeeRateLimitedError"],
    ] as const;
    for (const [text, name] of cases) {
      const named = namedByRefusal(incomplete(), [said(text)]);
      expect(named.name).toBe(name);
      expect(named).toBeInstanceOf(IncompleteRunError);
      expect((named as IncompleteRunError).details).toMatchObject({ writeStepsMissing: ["s3"] });
      expect(named.cause).toBeInstanceOf(IncompleteRunError);
    }
  });
  it("the last refusal names it; other tool errors, and other verdicts, are left as they are", () => {
    expect(namedByRefusal(incomplete(), [said(FreeeRefusalTexts.forbidden), said(FreeeRefusalTexts.notFound)]).name).toBe("FreeeNotFoundError");
    expect(namedByRefusal(incomplete(), [said(FreeeRefusalTexts.rejected(400)), { tool: "t", message: "ツールの実行中に内部エラーが発生しました。" }]).name).toBe("IncompleteRunError");
    expect(namedByRefusal(incomplete(), []).name).toBe("IncompleteRunError");
    const unknownWrite = judge([unknown("s2")], "[result:done]").error!;
    expect(namedByRefusal(unknownWrite, [said(FreeeRefusalTexts.forbidden)])).toBe(unknownWrite);
  });
});

describe("the failed Execution card says which writes are not done", () => {
  it("missing and done steps from the ledger, with [再実行]", () => {
    const h = history({
      task: baseTask({ status: "failed", executionCount: 1, currentProcessVersion: 1 }),
      processes: [processVersion(1, { status: "approved", steps })],
      executions: [execution(1, { status: "failed", errorName: "IncompleteRunError", completion: { writeStepsDone: ["s2"], writeStepsMissing: ["s3"], reported: "done", judgedAt: "t" } })],
    });
    const text = JSON.stringify(renderCard(h, { kind: "execution", executionNo: 1 }, { maxReruns: 3 }).blocks);
    // By the numbers and titles the card shows the steps under, never their ids.
    const line = /完了していない書き込みステップ: [^"]*/.exec(text)?.[0];
    expect(line).toMatch(/^完了していない書き込みステップ: 3\. .+（完了済み: 2\. .+。再実行では繰り返しません）$/);
    expect(line).not.toMatch(/\bs[23]\b/);
    expect(text).toContain("rerun_execution");
  });
});
