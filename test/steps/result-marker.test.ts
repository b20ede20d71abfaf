import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ProcessStep } from "../../lib/core/domain/records";
import { IncompleteRunError } from "../../lib/core/errors/taxonomy";
import { judgeRunCompletion, readResultMarker, type LedgerEntry } from "../../lib/steps/run-completion";
import { seedsFor } from "../support/seeds";

/**
 * The result marker read the way a model writes it (lib/model/agent/agent-prompt.ts shows it in backticks): in a code
 * span, bold or bare, then punctuation or whitespace, on the last non-empty line — and never looser than that,
 * nor than the ledger, which alone says what was written.
 */
/** The fast-check seeds CI replays (fast-check names a failure's seed and path; `npm run fuzz` explores). */
const SEEDS = seedsFor([27_004]);
const steps: ProcessStep[] = [{ stepId: "s1", order: 1, tool: "freee_hr_update_basic_pay_rule", toolInput: { year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 300_000 } }];
const doneS1: LedgerEntry = { tool: "t", digest: "d", marker: "m", executionId: "e1", attempt: 1, since: "2026-12-01T00:00:00Z", taskId: "T", processVersion: 1, stepId: "s1", state: "done", resultText: "{}", completedAt: "2026-12-01T00:00:01Z", how: "written" };
const judge = (finalMessage: string, ledger: LedgerEntry[] = [doneS1]) => judgeRunCompletion({ steps, processVersion: 1, ledger, finalMessage, now: new Date("2026-12-01T00:01:00Z") });

describe("the result marker as a model writes it", () => {
  it.each([
    ["bare", "基本給を変更しました。\n[result:done]", "基本給を変更しました。"],
    ["in a code span, as the instructions show it", "基本給を変更しました。\n`[result:done]`", "基本給を変更しました。"],
    ["followed by a full stop", "基本給を変更しました。\n[result:done]。", "基本給を変更しました。"],
    ["a code span and a full stop", "基本給を変更しました。\n`[result:done]`。", "基本給を変更しました。"],
    ["double backticks, trailing spaces and blank lines", "変更しました。\n``[result:done]``  \n\n", "変更しました。"],
    ["bold", "変更しました。\n**[result:done]**", "変更しました。"],
    ["an ASCII full stop or exclamation", "変更しました。\n[result:done]. ", "変更しました。"],
    ["at the end of the summary's own line", "変更しました。 [result:done]", "変更しました。"],
    ["in a fenced block that closes the message", "変更しました。\n```\n[result:done]\n```", "変更しました。"],
  ])("%s: done", (_, message, summary) => {
    const v = judge(message);
    expect(v.error).toBeUndefined();
    expect(v.completion.reported).toBe("done");
    expect(v.summary).toBe(summary);
  });

  it.each([
    ["followed by more words", "[result:done] と書く予定でしたが、まだ終わっていません"],
    ["not on the last non-empty line", "[result:done]\n山田さんの件はまだです。"],
    ["followed by a question mark", "完了でよいですか [result:done]？"],
    ["a misspelt marker", "`[result:don]`"],
    ["another case", "[RESULT:DONE]"],
    ["only mentioned inside a sentence", "最後に `[result:done]` を書くはずでした。"],
  ])("%s: no result line", (_, message) => {
    const v = judge(message);
    expect(v.completion.reported).toBe("missing");
    expect(v.error).toBeInstanceOf(IncompleteRunError);
  });

  it("`[result:incomplete]`。 is incomplete, however it is wrapped", () => {
    for (const message of ["一部だけ\n`[result:incomplete]`。", "一部だけ\n**[result:incomplete]**", "一部だけ [result:incomplete]"]) {
      const v = judge(message);
      expect(v.completion.reported).toBe("incomplete");
      expect(v.error).toBeInstanceOf(IncompleteRunError);
    }
  });

  const summaryText = fc.string({ maxLength: 40 }).filter((t) => !t.includes("[result:") && !t.includes("`") && !t.includes("\n"));
  const wrapper = fc.constantFrom("", "`", "``", "**");
  // Then blank lines: the marker's line stays the last non-empty one.
  const trailing = fc
    .tuple(fc.array(fc.constantFrom(" ", "\t", "。", ".", "、", "!", "！", "）", "」"), { maxLength: 4 }), fc.constantFrom("", "\n", "\n\n  \n"))
    .map(([a, blank]) => a.join("") + blank);

  it.each(SEEDS)("property: a marker wrapped and followed as a model writes it is read as written, the summary is what precedes it (seed %i)", (seed) => {
    fc.assert(
      fc.property(summaryText, wrapper, fc.constantFrom("done", "incomplete" as const), trailing, (summary, w, result, tail) => {
        const read = readResultMarker(`${summary}\n${w}[result:${result}]${w}${tail}`);
        expect(read?.result).toBe(result);
        expect(read?.before).toBe(summary.trim());
      }),
      { seed, numRuns: 300 },
    );
  });

  it.each(SEEDS)("property: words after the marker on its line, or a line after it, make it no result line (seed %i)", (seed) => {
    const words = fc.string({ minLength: 1, maxLength: 20 }).filter((t) => /[\p{L}\p{N}]/u.test(t) && !t.includes("[result:") && !t.includes("\n"));
    fc.assert(
      fc.property(summaryText, wrapper, words, fc.boolean(), (summary, w, after, newLine) => {
        expect(readResultMarker(`${summary}\n${w}[result:done]${w}${newLine ? "\n" : " "}${after}`)).toBeUndefined();
      }),
      { seed, numRuns: 300 },
    );
  });

  it.each(SEEDS)("property: the ledger stays the authority — a write not done is never completed, whatever the message says (seed %i)", (seed) => {
    fc.assert(
      fc.property(summaryText, wrapper, trailing, (summary, w, tail) => {
        const v = judge(`${summary}\n${w}[result:done]${w}${tail}`, []);
        expect(v.error).toBeInstanceOf(IncompleteRunError);
        expect(v.completion.writeStepsMissing).toEqual(["s1"]);
      }),
      { seed, numRuns: 200 },
    );
  });
});
