import type { ProcessStep } from "../core/domain/records";
import { dealTypeLabel, groupDigits, yearMonth } from "./format";

/**
 * A read step's conditions in words for the Process card (「2027年1月」「最大 20 件」「発生日 2026-12-01〜2026-12-31」),
 * never its tool name or JSON: the raw input is behind the step's 「入力 JSON」 button. A condition without words
 * here is counted, so the card never hides that there is more.
 */

type Input = Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : undefined);

/** Conditions that take two keys (a period, a year and month) come first; each consumes its keys. */
const PAIRS: Array<{ keys: [string, string]; words: (a: string | undefined, b: string | undefined) => string | undefined }> = [
  { keys: ["year", "month"], words: (y, m) => (y !== undefined && m !== undefined ? yearMonth(Number(y), Number(m)) : undefined) },
  { keys: ["start_issue_date", "end_issue_date"], words: (a, b) => (a ?? b) && `発生日 ${a ?? ""}〜${b ?? ""}` },
  { keys: ["start_date", "end_date"], words: (a, b) => (a ?? b) && `期間 ${a ?? ""}〜${b ?? ""}` },
  { keys: ["start_due_date", "end_due_date"], words: (a, b) => (a ?? b) && `支払期日 ${a ?? ""}〜${b ?? ""}` },
];

const SINGLE: Record<string, (v: string) => string> = {
  limit: (v) => `最大 ${groupDigits(Number(v))} 件`,
  offset: (v) => `${groupDigits(Number(v) + 1)} 件目から`,
  employee_id: (v) => `従業員 ID ${v}`,
  partner_id: (v) => `取引先 ID ${v}`,
  account_item_id: (v) => `勘定科目 ID ${v}`,
  date: (v) => `日付 ${v}`,
  keyword: (v) => `キーワード「${v}」`,
  type: (v) => dealTypeLabel(v),
  status: (v) => `状態 ${v}`,
  path: (v) => `freee の ${v}`,
};

export function readConditions(step: ProcessStep): string[] {
  const query = step.toolInput.query !== null && typeof step.toolInput.query === "object" ? (step.toolInput.query as Input) : {};
  const input: Input = { ...step.toolInput, ...query };
  delete input.query;
  const used = new Set<string>();
  const words: string[] = [];
  for (const pair of PAIRS) {
    const [a, b] = pair.keys;
    const text = pair.words(str(input[a]), str(input[b]));
    if (typeof text === "string" && text !== "") {
      words.push(text);
      used.add(a).add(b);
    }
  }
  for (const [key, value] of Object.entries(input)) {
    if (used.has(key)) continue;
    const say = SINGLE[key];
    const v = str(value);
    if (say !== undefined && v !== undefined) {
      words.push(say(v));
      used.add(key);
    }
  }
  const rest = Object.keys(input).filter((k) => !used.has(k)).length;
  if (rest > 0) words.push(`ほかの条件 ${rest} 件（「入力 JSON」で確認できます）`);
  return words;
}
