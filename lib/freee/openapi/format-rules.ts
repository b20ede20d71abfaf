/**
 * freee's format rules that its schemas leave out, put back on the vendored schemas as `format`s the validator
 * (lib/freee/openapi/validator.ts) checks. The schemas type accounting's dates as plain strings, though every one
 * is described 「(yyyy-mm-dd)」 and freee answers 400 to `2026/12/01`; HR's times carry a pattern that lets
 * `25:99` through; pm's 「取得対象範囲（YYYY-MM）」 is a plain string. A call freee would refuse never reaches it:
 * the plan fails validation, the MCP server refuses the tool call, the strict fake answers 400 — one rule set for all.
 *
 * The rules are keyed by where they apply — a field name, or the shape freee's own schema gives the field —
 * never by a list of operations, so they reach every operation vendored, however many.
 */

import type { PackedDetails } from "./packed";

type Schema = Record<string, unknown>;

export interface FormatRule {
  /** The `format` the rule puts on a field: what Ajv checks, tools/list shows and the message is chosen by. */
  format: string;
  /** Which JSON type the field has (the rule never retypes a field). */
  type: "string" | "integer" | "number";
  /** Whether the rule applies to this field of this API (`api` is the vendored API's name). */
  applies(api: string, name: string, schema: Schema): boolean;
  validate(value: string | number): boolean;
  /** Japanese, naming the field and what freee wants (never the value: it may be personal data). */
  message(field: string): string;
  /** How schema-text (L3, L2) shows the format to the model. */
  hint: string;
  /** A value the rule takes (what the fake's schema-built requests send). */
  example: string | number;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const YEAR_MONTH = /^(\d{4})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})(?::(\d{2}))?$/;
const CLOCK = /^(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** A check of one string shape: the pattern, then its numbers (a missing optional part reads 0). */
function shaped(pattern: RegExp, ok: (parts: number[]) => boolean): (value: string | number) => boolean {
  return (value) => {
    const m = typeof value === "string" ? pattern.exec(value) : null;
    return m !== null && ok(m.slice(1).map((part) => Number(part ?? 0)));
  };
}

const isDay = ([year = 0, month = 0, day = 0]: number[]) => month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
const isClock = ([hours = 0, minutes = 0, seconds = 0]: number[], maxHours: number) => hours <= maxHours && minutes <= 59 && seconds <= 59;

/** A date that exists: 2026-02-30 and 2026-13-01 are not dates, 2028-02-29 is. */
export const isCalendarDate: (text: string) => boolean = shaped(DATE, isDay);

/** A string rule whose message says the shape freee wants and the rule's example (「YYYY-MM で指定してください。例: 2026-12」). */
function stringShape(rule: Omit<FormatRule, "type" | "message" | "example"> & { shape: string; example: string }): FormatRule {
  const { shape, ...rest } = rule;
  const wanted = /[0-9A-Za-z]$/.test(shape) ? `${shape} で` : `${shape}で`;
  return { ...rest, type: "string", message: (field) => `${field} の形式が不正です（${wanted}指定してください。例: ${rule.example}）` };
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

const isString = (s: Schema) => s.type === "string" && !Array.isArray(s.enum);
/** A pattern of freee's that admits the empty string (`^(…)?$`, HR's 年金の支払開始日) keeps its own reading. */
const admitsEmpty = (s: Schema) => typeof s.pattern === "string" && new RegExp(s.pattern).test("");

export const FORMAT_RULES: readonly FormatRule[] = [
  stringShape({
    // Every field freee names `date`, `…_date` or `…_on` is a day (accounting says 「(yyyy-mm-dd)」, the other
    // APIs say `format: date`); the query filters (`start_issue_date`) are named the same way.
    format: "date",
    applies: (_api, name, s) => isString(s) && /(^|_)date$|_on$/.test(name) && !admitsEmpty(s),
    validate: isCalendarDate,
    shape: "YYYY-MM-DD の実在する日付",
    hint: "「YYYY-MM-DD」",
    example: "2026-12-01",
  }),
  stringShape({
    // 工数管理's 「取得対象範囲（YYYY-MM）」.
    format: "freee-year-month",
    applies: (_api, name, s) => isString(s) && name === "year_month",
    validate: shaped(YEAR_MONTH, ([, month = 0]) => month >= 1 && month <= 12),
    shape: "YYYY-MM",
    hint: "「YYYY-MM」",
    example: "2026-12",
  }),
  stringShape({
    // HR's date-times: `YYYY-MM-DD HH:MM(:SS)`, read as Japan time (freee's own pattern, which also lets a 31st of
    // February or a 25:99 through). Keyed by that pattern: where freee gives it, freee means it.
    format: "freee-date-time",
    applies: (_api, _name, s) => isString(s) && typeof s.pattern === "string" && s.pattern.startsWith("^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}"),
    validate: shaped(DATE_TIME, (parts) => isDay(parts.slice(0, 3)) && isClock(parts.slice(3), 23)),
    shape: "YYYY-MM-DD HH:MM:SS の日本時間",
    hint: "「YYYY-MM-DD HH:MM:SS」",
    example: "2026-12-01 09:00:00",
  }),
  stringShape({
    // HR's times of day (有給・特別休暇・残業申請の開始 / 終了): `HH:MM(:SS)`. Minutes and seconds are checked; the hour
    // only as freee's two digits, since a 残業 may end past midnight and freee does not say how it writes that.
    format: "freee-time",
    applies: (_api, _name, s) => isString(s) && typeof s.pattern === "string" && s.pattern.startsWith("^[0-9]{2}:[0-9]{2}"),
    validate: shaped(CLOCK, (parts) => isClock(parts, 99)),
    shape: "HH:MM",
    hint: "「HH:MM」",
    example: "09:00",
  }),
  {
    // Amounts in yen: whole numbers (freee: 「amountへのString型でのリクエストなどができなくなります」), within what a
    // JSON number carries exactly (int64's range is wider than a double's integers: 2^53 would arrive rounded).
    format: "freee-yen",
    type: "integer",
    applies: (_api, name, s) => s.type === "integer" && /(^|_)(amount|vat|balance|cost|remuneration)$|^(housing_loan_)?deduction$/.test(name),
    validate: (v) => typeof v === "number" && Number.isSafeInteger(v),
    message: (field) => `${field} は円単位の整数で指定してください（「12,000」のようなカンマや小数は使えません）`,
    hint: "円単位",
    example: 1000,
  },
  {
    // 請求書 API's line quantity: 「明細の数量 (整数部は8桁まで、小数部は3桁まで)」; the schema bounds the integer part only.
    format: "freee-quantity",
    type: "number",
    applies: (api, name, s) => api === "invoice" && name === "quantity" && s.type === "number",
    validate: (v) => typeof v === "number" && /^-?\d+(\.\d{1,3})?$/.test(String(v)),
    message: (field) => `${field} は小数点以下 3 桁までの数で指定してください`,
    hint: "小数点以下 3 桁まで",
    example: 1,
  },
];

const BY_FORMAT = new Map(FORMAT_RULES.map((r) => [r.format, r]));

export function formatRule(format: unknown): FormatRule | undefined {
  return typeof format === "string" ? BY_FORMAT.get(format) : undefined;
}

function ruleFor(api: string, name: string, schema: Schema): FormatRule | undefined {
  return FORMAT_RULES.find((r) => r.applies(api, name, schema));
}

/**
 * The schema with the rules' formats on the fields they apply to (a copy; `$ref`s are left as they are, the
 * components they name get the rules where they are defined). `name` is the field the schema is the value of: a
 * parameter's name, or undefined for a whole body or component.
 */
export function withFormatRules<T>(api: string, node: T, name?: string): T {
  if (Array.isArray(node)) return node.map((n) => withFormatRules(api, n, name)) as T;
  if (node === null || typeof node !== "object") return node;
  const schema = node as Schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && value !== null && typeof value === "object") {
      out.properties = Object.fromEntries(Object.entries(value as Schema).map(([field, sub]) => [field, withFormatRules(api, sub, field)]));
    } else if (key === "items" || key === "anyOf" || key === "oneOf" || key === "allOf") {
      // An array's items and an alternative's branches are values of the same field.
      out[key] = withFormatRules(api, value, name);
    } else {
      out[key] = withFormatRules(api, value);
    }
  }
  const rule = name === undefined || typeof schema.$ref === "string" ? undefined : ruleFor(api, name, schema);
  if (rule !== undefined) {
    // int32's range stays when its format gives way to the rule's.
    if (schema.format === "int32") Object.assign(out, { minimum: schema.minimum ?? INT32_MIN, maximum: schema.maximum ?? INT32_MAX });
    out.format = rule.format;
  }
  return out as T;
}

/** Every component of one API's vendored `$defs`, with the rules applied. */
export function defsWithFormatRules(api: string, defs: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(defs).map(([key, schema]) => [key, withFormatRules(api, schema)]));
}

/**
 * One API's details (lib/freee/openapi/packed.ts) with the rules applied: its components, and each operation's
 * parameters and body. scripts/vendor-freee-openapi.ts packs them so (test/freee/format-rules.test.ts holds the
 * packed module to freee-operations.json with the rules on); the validator reads nothing else, so every check,
 * tools/list and the schema text see the rules, and no Lambda applies them at run time.
 */
export function detailsWithFormatRules(api: string, d: PackedDetails): PackedDetails {
  return {
    schemas: defsWithFormatRules(api, d.schemas),
    operations: d.operations.map((op) => {
      const body = op.requestBody as { schema: Schema } | undefined;
      return {
        ...op,
        parameters: op.parameters.map((p) => {
          const param = p as { name: string; schema: Schema };
          return { ...param, schema: withFormatRules(api, param.schema, param.name) };
        }),
        ...(body === undefined ? {} : { requestBody: { ...body, schema: withFormatRules(api, body.schema) } }),
      };
    }),
  };
}
