import type { ProcessStep } from "../core/domain/records";
import { inlineMrkdwn } from "../core/messages/mrkdwn";
import { toolSummary } from "../freee/tools/summaries";
import { groupDigits } from "./format";
import { readByPath, readByTemplate, type ReadOperation } from "./read-params";
import { readNounOf } from "../freee/collection-nouns";
import { ownEntry } from "../core/own-entry";

/**
 * A read step in words, as the Process card shows it: what is read, for which period and with which filters, and
 * how many rows at most (「2026年12月の取引（最大 20 件）」). Every input field is said — a period, a filter in freee's
 * own words (its parameter descriptions), the page size — so the words stand for the whole input (the raw input
 * stays behind 「入力 JSON」). Undefined for a read the words do not cover (agent_decide, an unknown path). freee's
 * words come compiled (lib/preview/read-params.ts): the Slack Lambda does not load the OpenAPI.
 */


/** Fields said by the period or the count, not as a filter. */
const PAGING = new Set(["limit", "offset", "page", "per_page"]);

export function readInWords(step: Pick<ProcessStep, "tool" | "toolInput">): string | undefined {
  const target = targetOf(step);
  if (target === undefined) return undefined;
  const { operation, query, pathValues } = target;
  const noun = readNounOf(operation.path);
  if (noun === undefined) return undefined;
  const said = new Set<string>();
  const period = periodWords(query, operation, said);
  const filters = [...pathValues, ...filterWords(query, operation, said)];
  const count = countWords(query, operation, said);
  const rest = Object.keys(query).filter((k) => !said.has(k) && !PAGING.has(k));
  if (rest.length > 0) return undefined;
  const offset = typeof query.offset === "number" && query.offset > 0 ? `${groupDigits(query.offset)} 件目以降` : "";
  const tail = [count, offset].filter((w) => w !== "");
  const words = [period, ...filters].filter((w) => w !== "");
  // A record read by its own id (「従業員 ID 2」) is named by it, not followed by its noun again.
  const byOwnId = /\{[^}]+\}$/.test(operation.path) && pathValues.at(-1)?.startsWith(`${noun} ID`) === true;
  const subject = byOwnId ? words.pop()! : words.length === 0 && tail.length === 0 ? `${noun}の一覧` : noun;
  return `${words.map(joinNo).join("")}${subject}${tail.length === 0 ? "" : `（${tail.join("、")}）`}`;
}

/** 「…の」 between words: a space before it after a number or Latin letters (「取引先 ID 12 の」), none after 「含む」. */
function joinNo(word: string): string {
  if (word.endsWith("含む")) return word;
  return /[0-9A-Za-z]$/.test(word) ? `${word} の` : `${word}の`;
}

/**
 * A read's conditions as separate phrases, where the whole sentence does not fit (a collection without a noun here,
 * a field freee's words do not cover) and for a failure's 対象: what can be said, then how many conditions are left
 * to 「入力 JSON」 — the card never hides that there is more.
 */
export function readConditions(step: Pick<ProcessStep, "tool" | "toolInput">): string[] {
  const target = targetOf(step);
  if (target === undefined) {
    const given = Object.keys(step.toolInput).length;
    return given === 0 ? [] : [`条件 ${given} 件（「入力 JSON」で確認できます）`];
  }
  const { operation, query, pathValues } = target;
  const said = new Set<string>();
  const words = [periodWords(query, operation, said), ...pathValues, ...filterWords(query, operation, said), countWords(query, operation, said)].filter((w) => w !== "");
  const rest = Object.keys(query).filter((k) => !said.has(k) && !PAGING.has(k)).length;
  if (rest > 0) words.push(`ほかの条件 ${rest} 件（「入力 JSON」で確認できます）`);
  return words;
}

/** The card's line of a read step when its words cover it (lib/preview/plan.ts falls back to readConditions). */
export function readStepText(step: ProcessStep): string | undefined {
  const words = readInWords(step);
  return words === undefined ? undefined : `*${step.order}. ${inlineMrkdwn(words)}*（読み取り）`;
}

type Operation = ReadOperation & { path: string };
type Target = { operation: Operation; query: Record<string, unknown>; pathValues: string[] };

function targetOf(step: Pick<ProcessStep, "tool" | "toolInput">): Target | undefined {
  const summary = toolSummary(step.tool);
  if (summary === undefined || !summary.readOnly) return undefined;
  const input = step.toolInput;
  if (step.tool === "freee_api_get") {
    if (typeof input.path !== "string") return undefined;
    const found = readByPath(input.path);
    if (found === undefined) return undefined;
    const query = typeof input.query === "object" && input.query !== null ? (input.query as Record<string, unknown>) : {};
    const pathValues = Object.entries(found.pathParams).map(([name, value]) => idWords(name, value, found.read));
    return { operation: found.read, query, pathValues };
  }
  if (summary.operation === undefined) return undefined;
  const [method, path] = summary.operation.split(" ");
  const operation = method === "GET" && path !== undefined ? readByTemplate(path) : undefined;
  if (operation === undefined) return undefined;
  // Typed tools put path values (employee_id, date) in their flat input: said as ids / dates, not as filters.
  const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const pathValues: string[] = [];
  const query: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const pathName = names.find((n) => n === key || (n === "id" && key.endsWith("_id")));
    if (pathName === undefined) query[key] = value;
    else pathValues.push(typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value) ? dateWords(value) : idWords(key, value, operation));
  }
  return { operation, query, pathValues };
}

/** Path ids freee does not describe that name another collection than the path's own (a company's tax list). */
const OTHER_IDS: Readonly<Record<string, string>> = { employee_id: "従業員ID", company_id: "事業所ID" };

function idWords(name: string, value: unknown, operation: Operation): string {
  const described = operation.parameters[name]?.label;
  const label = described ?? ownEntry(OTHER_IDS, name) ?? (name.endsWith("_id") || name === "id" ? `${readNounOf(operation.path) ?? ""}ID` : name);
  return `${label.replace(/ID$/, " ID")} ${String(value)}`;
}

function dateWords(date: string): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return `${y}年${m}月${d}日`;
}

function lastDay(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A period in words: a whole month 「2026年12月」, one day, or from–to. */
function rangeWords(start: string | undefined, end: string | undefined): string {
  if (start !== undefined && end !== undefined) {
    const [sy, sm, sd] = start.split("-").map(Number) as [number, number, number];
    const [ey, em, ed] = end.split("-").map(Number) as [number, number, number];
    if (sy === ey && sm === em && sd === 1 && ed === lastDay(ey, em)) return `${sy}年${sm}月`;
    if (start === end) return dateWords(start);
    return `${dateWords(start)}〜${sy === ey ? dateWords(end).replace(/^\d+年/, "") : dateWords(end)}`;
  }
  if (start !== undefined) return `${dateWords(start)}以降`;
  return `${dateWords(end!)}まで`;
}

const isDate = (v: unknown): v is string => typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v);

function periodWords(query: Record<string, unknown>, operation: Operation, said: Set<string>): string {
  const parts: string[] = [];
  if (typeof query.year === "number" && typeof query.month === "number") {
    parts.push(`${query.year}年${query.month}月`);
    said.add("year").add("month");
  }
  const suffixes = new Set(Object.keys(query).filter((k) => /^(start|end)_/.test(k)).map((k) => k.replace(/^(start|end)_/, "")));
  for (const suffix of suffixes) {
    const [s, e] = [query[`start_${suffix}`], query[`end_${suffix}`]];
    if ((s !== undefined && !isDate(s)) || (e !== undefined && !isDate(e))) continue;
    said.add(`start_${suffix}`).add(`end_${suffix}`);
    const words = rangeWords(s, e);
    // The issue date is what a list of deals is by; another date is named (「支払期日 2026年12月」).
    const named = operation.parameters[`start_${suffix}`]?.label?.replace(/の?(開始日|終了日)$/, "");
    const label = suffix === "issue_date" || suffix === "date" ? "" : `${named ?? suffix} `;
    parts.push(`${label}${words}`);
  }
  for (const key of ["date", "target_date"]) {
    if (isDate(query[key])) {
      parts.push(dateWords(query[key]));
      said.add(key);
    }
  }
  return parts.join("・");
}

function filterWords(query: Record<string, unknown>, operation: Operation, said: Set<string>): string[] {
  const words: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (said.has(key) || PAGING.has(key) || value === undefined) continue;
    const parameter = operation.parameters[key];
    if (parameter === undefined) continue;
    const meaning = parameter.enum?.[String(value)];
    const label = parameter.label ?? key;
    if (meaning !== undefined) words.push(meaning);
    else if (key.endsWith("_id")) words.push(`${label.replace(/ID$/, " ID")} ${String(value)}`);
    else if (key === "keyword") words.push(`名前などに「${String(value)}」を含む`);
    else words.push(`${label}「${String(value)}」`);
    said.add(key);
  }
  return words;
}

function countWords(query: Record<string, unknown>, operation: Operation, said: Set<string>): string {
  for (const key of ["limit", "per_page"]) {
    if (typeof query[key] === "number") {
      said.add(key);
      return `最大 ${groupDigits(query[key])} 件`;
    }
  }
  // Not given: freee's default page size, as its parameter says it (「取得レコードの件数 (デフォルト: 20, 最大: 100)」).
  return operation.defaultCount === undefined ? "" : `最大 ${groupDigits(operation.defaultCount)} 件`;
}
