import { derefSchema, type FreeeOperation } from "../openapi/validator";

/**
 * freee's schemas as short Japanese text for the model (L3's catalogue, L2's list of what freee can do): one line
 * per field with whether it is required, its type, the format freee expects and freee's own description.
 * Deterministic, so the cached system prompt stays byte-identical between calls.
 */

type Schema = Record<string, unknown>;

const TIME_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}(:[0-9]{2})?$";
const DATE_PATTERNS = new Set(["^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "^\\d{4}-\\d{2}-\\d{2}$"]);
/** Bounds that only restate the integer type (int32 / int64 ranges, id ≥ 1) say nothing to the model. */
const NOISE_BOUND = 1e9;

function branch(schema: Schema): Schema {
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  return alternatives === undefined ? schema : (alternatives[0] ?? {});
}

function typeText(schema: Schema): string {
  const s = branch(schema);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  const parts: string[] = [String(s.type ?? "any")];
  if (s.pattern === TIME_PATTERN) parts.push("「YYYY-MM-DD HH:MM:SS」");
  else if (typeof s.pattern === "string" && DATE_PATTERNS.has(s.pattern)) parts.push("「YYYY-MM-DD」");
  else if (typeof s.pattern === "string") parts.push(`形式 ${s.pattern}`);
  else if (s.format === "date") parts.push("「YYYY-MM-DD」");
  for (const [key, word] of [["minimum", "≥"], ["maximum", "≤"]] as const) {
    const v = s[key];
    if (typeof v === "number" && Math.abs(v) < NOISE_BOUND && !(key === "minimum" && (v === 0 || v === 1) && s.type === "integer")) parts.push(`${word}${v}`);
  }
  if (typeof s.maxLength === "number") parts.push(`${s.maxLength}文字まで`);
  if (s.nullable === true) parts.push("null 可");
  return parts.join(" ");
}

/** Field lines of an object schema, nested objects and arrays of objects indented under their field. */
export function fieldLines(schema: unknown, indent = "", depth = 0): string[] {
  const s = branch(derefSchema(schema) as Schema);
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required ?? []) as string[]);
  const lines: string[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    if (name === "company_id") continue;
    const p = branch(raw);
    const mark = required.has(name) ? "（必須）" : "";
    const description = typeof raw.description === "string" ? ` — ${raw.description}` : typeof p.description === "string" ? ` — ${p.description}` : "";
    const items = p.type === "array" ? branch((p.items ?? {}) as Schema) : undefined;
    if (items !== undefined && items.type === "object" && depth < 2) {
      lines.push(`${indent}- ${name}${mark}: 配列。各要素:${description}`, ...fieldLines(items, `${indent}  `, depth + 1));
    } else if (p.type === "object" && p.properties !== undefined && depth < 2) {
      lines.push(`${indent}- ${name}${mark}: オブジェクト:${description}`, ...fieldLines(p, `${indent}  `, depth + 1));
    } else {
      const type = items === undefined ? typeText(p) : `${typeText(items)} の配列`;
      lines.push(`${indent}- ${name}${mark}: ${type}${description}`);
    }
  }
  return lines;
}

/** Query parameters of an operation in one line (company_id left out: the server sets it). */
export function queryLine(operation: FreeeOperation): string | undefined {
  const params = operation.parameters.filter((p) => p.in === "query" && p.name !== "company_id");
  if (params.length === 0) return undefined;
  return `クエリ: ${params.map((p) => `${p.name}${p.required ? "（必須）" : ""} ${typeText(p.schema)}`).join(", ")}`;
}

/**
 * One operation's inputs as text (query parameters, body fields): what the catalogue leaves out at 300 operations,
 * given to the model with a validation issue of that operation so its retry writes the input freee takes.
 */
export function operationSchemaText(operation: FreeeOperation): string {
  const lines = [`${operation.method} ${operation.path}（${operation.summary}）の入力:`];
  const query = queryLine(operation);
  if (query !== undefined) lines.push(query);
  if (operation.requestBody !== undefined) lines.push("body:", ...fieldLines(operation.requestBody.schema));
  if (lines.length === 1) lines.push("（クエリ・body なし）");
  return lines.join("\n");
}
