import type { ReadTable } from "../../core/domain/records";
import { listNounOf } from "../../freee/collection-nouns";
import { columnLabel, meaningOf, shownFields } from "./result-columns";

/**
 * What a tool result says, for the Execution card: a one-line Japanese result, and — for a read that returned a
 * list — a small table of it. Pure; the text is the MCP server's tool result (freee's JSON answer, or its error).
 */

/**
 * Rows and columns kept on the Execution item, and how many read steps keep a table: a DynamoDB item holds at most
 * 400 KB, so the worst case (every cell 40 Japanese characters) stays near half of it. The card shows fewer rows.
 */
export const TABLE_MAX_ROWS = 50;
export const MAX_TABLES = 6;
export const TABLE_MAX_COLUMNS = 6;
export const CELL_MAX_CHARS = 40;
const NOTE_MAX_CHARS = 120;
/** Rows of a read result the Execution card shows; a longer one goes to the thread as a CSV file. */
export const CARD_TABLE_ROWS = 10;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function parse(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    // A result cut short by the MCP server (its size limit) or plain text: there is no table to read.
    return undefined;
  }
}

const isRecord = (v: Json | undefined): v is { [k: string]: Json } => typeof v === "object" && v !== null && !Array.isArray(v);
const isScalar = (v: Json | undefined) => v === null || ["string", "number", "boolean"].includes(typeof v);

/** The first list of objects in freee's answer (`{"deals": [...]}`), with its key. */
function firstList(value: Json | undefined): { key: string; rows: { [k: string]: Json }[] } | undefined {
  if (Array.isArray(value)) return { key: "", rows: value.filter(isRecord) };
  if (!isRecord(value)) return undefined;
  for (const [key, v] of Object.entries(value)) {
    if (Array.isArray(v) && (v.length === 0 || v.some(isRecord))) return { key, rows: v.filter(isRecord) };
  }
  return undefined;
}

/** Amounts and balances read as money (digits grouped, 円); codes and numbers stay as freee wrote them. */
const AMOUNT = /(^|_)(amount|balance)$/;

function cell(list: string, key: string, v: Json | undefined): string {
  if (v === undefined || v === null) return "";
  const meaning = typeof v === "object" ? undefined : meaningOf(list, key, v);
  const text = meaning ?? (typeof v === "number" && AMOUNT.test(key) ? `${v.toLocaleString("ja-JP")}円` : String(v));
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= CELL_MAX_CHARS ? flat : `${flat.slice(0, CELL_MAX_CHARS - 1)}…`;
}

/** A read result as a table, or undefined when it holds no list (one record, plain text, a cut-off answer). */
export function readTableOf(text: string): ReadTable | undefined {
  const value = parse(text);
  const list = firstList(value);
  if (list === undefined) return undefined;
  const keys: string[] = [];
  for (const row of list.rows.slice(0, TABLE_MAX_ROWS)) for (const [k, v] of Object.entries(row)) if (isScalar(v) && !keys.includes(k)) keys.push(k);
  // Japanese columns only, from freee's schema; internal and personal columns are not kept (lib/model/agent/result-columns.ts).
  const ordered = shownFields(list.key, keys, TABLE_MAX_COLUMNS);
  return {
    label: listNounOf(list.key) ?? "結果",
    columns: ordered.map((k) => columnLabel(list.key, k)!),
    rows: list.rows.slice(0, TABLE_MAX_ROWS).map((row) => ordered.map((k) => cell(list.key, k, row[k]))),
    total: totalOf(value, list.rows.length),
  };
}

/** freee's own count when it gives one (`meta.total_count`, `total_count`: a page of a longer list), else the rows returned. */
function totalOf(value: Json | undefined, returned: number): number {
  if (!isRecord(value)) return returned;
  const meta = value.meta;
  const counted = isRecord(meta) ? meta.total_count : value.total_count;
  return typeof counted === "number" && Number.isInteger(counted) && counted >= returned ? counted : returned;
}

/** The one line a successful tool result gets on the card. */
export function okNote(effect: "read" | "write", table: ReadTable | undefined): string {
  if (table !== undefined) return `${table.label} ${table.total} 件を取得しました`;
  return effect === "write" ? "freee に書き込みました" : "取得しました";
}

/** The one line a failed tool result gets: its first line, cut short. */
export function errorNote(text: string): string {
  const first = text.split("\n").find((l) => l.trim() !== "")?.trim() ?? "(エラー内容なし)";
  return `エラー: ${first.length <= NOTE_MAX_CHARS ? first : `${first.slice(0, NOTE_MAX_CHARS - 1)}…`}`;
}

/**
 * A cell Excel would run as a formula (`=HYPERLINK(…)`, `+`, `@`, a leading tab or CR, `-` not starting a number):
 * freee's text is written by whoever typed it, so it opens as text with a leading apostrophe (OWASP CSV injection).
 */
const FORMULA_START = /^(?:[=+@\t\r]|-(?![\d,.]+$))/;

/** A table as CSV for Excel: UTF-8 with a BOM, CRLF, every cell quoted, no cell read as a formula. */
export function tableCsv(table: ReadTable): string {
  const quote = (v: string) => `"${(FORMULA_START.test(v) ? `'${v}` : v).replace(/"/g, '""')}"`;
  return `\uFEFF${[table.columns, ...table.rows].map((r) => r.map(quote).join(",")).join("\r\n")}\r\n`;
}
