import { operationEntry } from "../freee/openapi/operations";
import { derefSchema, type FreeeOperation } from "../freee/openapi/validator";
import type { PreviewChange } from "../core/domain/preview";
import type { Described } from "./describe";
import { yen } from "./format";
import type { FreeeNamed, FreeeReader, Read } from "./reader";

/**
 * The preview of a generic write, from the operation's own schema: a POST says in Japanese what will be
 * created — every field under freee's label, ids shown with their names where the schema gives an id of a list
 * freee can read; a PUT shows each value it sends beside the current one, read from the same path's GET; a DELETE
 * shows the record it removes. A value that cannot be read is said to be so.
 */

type Schema = { description?: string; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; type?: string };

/** The ids freee's schemas give and the list each one's name is read from. */
const NAMED: Record<string, (reader: FreeeReader) => Promise<Read<FreeeNamed[]>>> = {
  partner_id: (r) => r.partners(),
  account_item_id: (r) => r.accountItems(),
  from_walletable_id: (r) => r.namedList("/api/1/walletables", "walletables"),
  walletable_id: (r) => r.namedList("/api/1/walletables", "walletables"),
  section_id: (r) => r.namedList("/api/1/sections", "sections"),
  item_id: (r) => r.namedList("/api/1/items", "items"),
  tag_ids: (r) => r.namedList("/api/1/tags", "tags"),
};

class Names {
  readonly warnings: string[] = [];
  constructor(private readonly reader: FreeeReader) {}

  async of(key: string, id: number): Promise<string | undefined> {
    if (key === "tax_code") {
      const taxes = await this.reader.taxCodes();
      const found = taxes.ok ? taxes.value.find((t) => t.code === id) : undefined;
      return found === undefined ? (id === 0 ? "対象外" : undefined) : (found.name_ja ?? found.name);
    }
    const list = NAMED[key];
    if (list === undefined) return undefined;
    const read = await list(this.reader);
    if (!read.ok) {
      this.warn(`${key} の名前を freee から読み取れませんでした（${read.reason}）。`);
      return undefined;
    }
    const found = read.value.find((n) => n.id === id);
    if (found === undefined) this.warn(`${key} ${id} は freee に見つかりません。`);
    return found?.name;
  }

  private warn(text: string): void {
    if (!this.warnings.includes(text)) this.warnings.push(text);
  }
}

function branch(schema: Schema | undefined): Schema {
  return schema?.anyOf?.[0] ?? schema ?? {};
}

function labelOf(key: string, schema: Schema | undefined): string {
  const d = schema?.description?.replace(/[（(].*$/, "").trim();
  if (d === undefined || d === "") return key;
  // 「取引先ID」 shows the name beside the id: the label is the thing, 「取引先」.
  return key.endsWith("_id") && d.endsWith("ID") && d.length > 2 ? d.slice(0, -2) : d;
}

async function valueText(key: string, value: unknown, names: Names): Promise<string> {
  if (typeof value === "number" && (key.endsWith("_id") || key === "tax_code")) {
    const name = await names.of(key, value);
    return name === undefined ? `ID ${value}` : `${name}（ID ${value}）`;
  }
  if (Array.isArray(value) && key.endsWith("_ids")) {
    const shown = await Promise.all(value.map(async (v) => (typeof v === "number" ? ((await names.of(key, v)) ?? `ID ${v}`) : String(v))));
    return shown.join("、");
  }
  if (typeof value === "number" && /amount|price/.test(key)) return yen(value);
  if (typeof value === "string" && /price/.test(key) && /^-?\d+$/.test(value)) return yen(Number(value));
  if (typeof value === "boolean") return value ? "はい" : "いいえ";
  if (value === null) return "なし";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Every field of a value in words: `label: value`, lines of an array each on their own. */
async function fieldTexts(value: Record<string, unknown>, schema: Schema, names: Names): Promise<{ label: string; text: string }[]> {
  const s = branch(schema);
  const out: { label: string; text: string }[] = [];
  for (const [key, v] of Object.entries(value)) {
    const sub = branch(s.properties?.[key]);
    const label = labelOf(key, s.properties?.[key] ?? sub);
    if (Array.isArray(v) && v.some((x) => x !== null && typeof x === "object")) {
      for (const [i, item] of v.entries()) {
        const parts = await fieldTexts(item as Record<string, unknown>, branch(sub.items), names);
        out.push({ label: `${label} ${i + 1}`, text: parts.map((p) => `${p.label} ${p.text}`).join("、") });
      }
    } else if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      const parts = await fieldTexts(v as Record<string, unknown>, sub, names);
      out.push({ label, text: parts.map((p) => `${p.label} ${p.text}`).join("、") });
    } else {
      out.push({ label, text: await valueText(key, v, names) });
    }
  }
  return out;
}

/** freee wraps a record in its name (`{ invoice: {…} }`). */
function unwrap(data: Record<string, unknown>): Record<string, unknown> {
  const entries = Object.entries(data);
  const only = entries.length === 1 ? entries[0]![1] : undefined;
  return only !== null && typeof only === "object" && !Array.isArray(only) ? (only as Record<string, unknown>) : data;
}

/** A record in one line: the fields a person recognises it by. */
/** The fields that tell a record apart, under the labels freee's screens use. */
const BRIEF_LABELS: readonly (readonly [string, string])[] = [
  ["name", "名前"],
  ["subject", "件名"],
  ["invoice_number", "請求書番号"],
  ["issue_date", "発生日"],
  ["billing_date", "請求日"],
  ["date", "日付"],
  ["amount", "金額"],
  ["total_amount", "合計金額"],
  ["ref_number", "管理番号"],
];

function brief(record: Record<string, unknown>): string {
  const parts = BRIEF_LABELS.filter(([k]) => record[k] !== undefined && record[k] !== null && record[k] !== "").map(([k, label]) => `${label} ${/amount/.test(k) && typeof record[k] === "number" ? yen(record[k] as number) : String(record[k])}`);
  return parts.length === 0 ? `ID ${String(record.id ?? "?")}` : parts.join("、");
}

/** freee's name for a record (a partner's, an employee's), when it has one. */
function nameOf(record: Record<string, unknown> | undefined): string | undefined {
  const name = record?.display_name ?? record?.name;
  return typeof name === "string" && name !== "" ? name : undefined;
}

export async function describeGeneric(method: string, input: Record<string, unknown>, reader: FreeeReader): Promise<Described> {
  const path = String(input.path);
  const found = operationEntry(method, path);
  if (found === undefined) {
    return { title: `${method} ${path}`, summary: `${method} ${path}（freee API の操作ではありません）`, details: [], changes: [], current: "unreadable", currentNote: "この操作は freee のスキーマにありません。", warnings: [] };
  }
  const op: FreeeOperation = found.entry.operation;
  const names = new Names(reader);
  const body = (input.body ?? {}) as Record<string, unknown>;
  const fields = await fieldTexts(body, derefSchema(op.requestBody?.schema ?? {}) as Schema, names);
  const query = Object.entries((input.query ?? {}) as Record<string, unknown>);
  const queryTexts = await Promise.all(query.map(async ([k, v]) => ({ label: labelOf(k, op.parameters.find((p) => p.name === k) as Schema | undefined), text: await valueText(k, v, names) })));
  const all = [...queryTexts, ...fields];
  const title = op.summary;
  if (method === "POST") {
    const changes: PreviewChange[] = all.map((f) => ({ label: f.label, after: f.text }));
    const head = all.filter((f) => !/ \d+$/.test(f.label)).slice(0, 3).map((f) => `${f.label} ${f.text}`).join("、");
    return { title, summary: `${title}: ${head === "" ? path : head}`, details: all.map((f) => `${f.label}: ${f.text}`), changes, current: "none", warnings: names.warnings };
  }
  const current = await reader.resource(path);
  const record = current.ok ? unwrap(current.value) : undefined;
  const note = current.ok ? {} : { currentNote: `現在の内容を freee から読み取れませんでした（${current.reason}）。` };
  if (method === "DELETE") {
    const what = record === undefined ? path : brief(record);
    const named = nameOf(record);
    return { title, summary: `${title}: ${what}`, details: [`対象: ${path}`], changes: [{ label: "削除", ...(record === undefined ? {} : { before: what }), after: "（削除されます）" }], current: current.ok ? "read" : "unreadable", ...note, warnings: names.warnings, ...(named === undefined ? {} : { targetName: named }) };
  }
  const bodySchema = branch(derefSchema(op.requestBody?.schema ?? {}) as Schema);
  const changes: PreviewChange[] = [];
  for (const [key, value] of Object.entries(body)) {
    const label = labelOf(key, bodySchema.properties?.[key]);
    const after = (await fieldTexts({ [key]: value }, bodySchema, names)).map((f) => f.text).join(" / ");
    const before = record === undefined || !(key in record) ? undefined : (await fieldTexts({ [key]: record[key] }, bodySchema, names)).map((f) => f.text).join(" / ");
    changes.push({ label, ...(before === undefined ? {} : { before }), after });
  }
  const shown = changes.map((c) => `${c.label} ${c.before ?? "?"} → ${c.after}`).join("、");
  const named = nameOf(record);
  return { title, summary: `${title}（${path}）: ${shown === "" ? "変更する項目がありません" : shown}`, details: [], changes, current: current.ok ? "read" : "unreadable", ...note, warnings: names.warnings, ...(named === undefined ? {} : { targetName: named }) };
}
