import { schemasOf, type FreeeApi } from "../../../lib/freee/openapi/validator";
import { responseDefs } from "../../../lib/freee/openapi/responses";

/**
 * The smallest value a vendored freee schema accepts: the required properties only, the first enum member, the
 * lowest number allowed, a string of the right pattern or format. The generic routes of the freee fake build their
 * answers from it (freee's example bodies are not vendored), and the fake's tests build valid requests with it.
 * `pick` supplies a value where the caller knows a better one (an id that exists); the caller's schema check still
 * judges the whole.
 */

export type Schema = Record<string, unknown>;
export type Pick = (name: string, schema: Schema) => unknown;

export interface InstanceOptions {
  pick?: Pick;
  /** Optional properties too (a request that sets every field); required ones only when false. */
  optional?: boolean;
}

/** What a `$ref` of the vendored schemas names (`<api>#/$defs/<name>`), request and response components both. */
export function resolveRef(schema: unknown): Schema {
  let node = schema as Schema;
  for (let hops = 0; typeof node?.$ref === "string"; hops++) {
    const [api, name] = (node.$ref as string).split("#/$defs/") as [FreeeApi, string];
    // Response components first, as the fake's response Ajv merges them (lib/freee/openapi/responses.ts).
    const target = responseDefs(api)[name] ?? schemasOf(api)[name];
    if (target === undefined || hops > 20) throw new Error(`vendored freee schema: dangling $ref ${String(node.$ref)}`);
    node = target as Schema;
  }
  return node ?? {};
}

/** The schema's types, `null` last (a nullable field is given a value, not null, where one is possible). */
export function typesOf(schema: Schema): string[] {
  const t = schema.type;
  const list = Array.isArray(t) ? (t as string[]) : typeof t === "string" ? [t] : schema.properties !== undefined ? ["object"] : [];
  return [...list.filter((x) => x !== "null"), ...list.filter((x) => x === "null")];
}

/** The alternatives of an anyOf / oneOf, resolved; the non-null ones first. */
function alternatives(schema: Schema): Schema[] {
  const alts = ((schema.anyOf ?? schema.oneOf ?? []) as unknown[]).map(resolveRef);
  return [...alts.filter((a) => !typesOf(a).every((t) => t === "null")), ...alts.filter((a) => typesOf(a).every((t) => t === "null") && typesOf(a).length > 0)];
}

// freee's string patterns (the vendored schemas hold these few), in the order tried.
const PATTERN_CANDIDATES = ["2026-12-01", "2026-12-01 09:00:00", "09:00:00", "09:00", "T1234567890123", "100-0001", "1000", "a", ""];

function stringFor(schema: Schema): string {
  const pattern = typeof schema.pattern === "string" ? new RegExp(schema.pattern) : undefined;
  const byFormat: Record<string, string> = {
    date: "2026-12-01",
    "date-time": "2026-12-01T09:00:00.000+09:00",
    uri: "https://example.invalid/freee",
    email: "user@example.invalid",
    binary: "(file)",
  };
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Infinity;
  const fits = (s: string) => s.length >= min && s.length <= max && (pattern === undefined || pattern.test(s));
  const first = typeof schema.format === "string" ? byFormat[schema.format] : undefined;
  const found = [first, ...PATTERN_CANDIDATES].find((s): s is string => s !== undefined && fits(s));
  if (found !== undefined) return found;
  if (pattern === undefined) return "a".repeat(Math.max(1, min));
  throw new Error(`fake freee: no string for pattern ${String(schema.pattern)}`);
}

function numberFor(schema: Schema, integer: boolean): number {
  const lowest = typeof schema.minimum === "number" ? schema.minimum : typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + (integer ? 1 : 0.5) : undefined;
  const highest = typeof schema.maximum === "number" ? schema.maximum : typeof schema.exclusiveMaximum === "number" ? schema.exclusiveMaximum - 1 : undefined;
  let n = lowest ?? 1;
  if (lowest === undefined && highest !== undefined && n > highest) n = highest;
  return integer ? Math.ceil(n) : n;
}

export function instanceOf(schemaIn: unknown, options: InstanceOptions = {}, name = "", depth = 0): unknown {
  const schema = resolveRef(schemaIn);
  if (depth > 24) return null;
  const picked = options.pick?.(name, schema);
  if (picked !== undefined) return picked;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).find((v) => v !== null) ?? null;
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as unknown[]).map((p) => instanceOf(p, options, name, depth + 1));
    const rest: Schema = { ...schema, allOf: undefined };
    const own = rest.properties !== undefined || rest.type !== undefined ? instanceOf(rest, options, name, depth + 1) : undefined;
    return Object.assign({}, ...[...parts, own].filter((p) => p !== null && typeof p === "object"));
  }
  const alts = alternatives(schema);
  if (alts.length > 0 && schema.properties === undefined) return instanceOf(alts[0], options, name, depth + 1);
  const type = typesOf(schema)[0];
  switch (type) {
    case "object":
      return objectFor(schema, options, depth);
    case "array": {
      const count = typeof schema.minItems === "number" ? schema.minItems : 0;
      return Array.from({ length: count }, () => instanceOf(schema.items ?? {}, options, name, depth + 1));
    }
    case "string":
      return stringFor(schema);
    case "integer":
      return numberFor(schema, true);
    case "number":
      return numberFor(schema, false);
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return schema.properties === undefined ? "" : objectFor(schema, options, depth);
  }
}

function objectFor(schema: Schema, options: InstanceOptions, depth: number): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set((schema.required ?? []) as string[]);
  const out: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(props)) {
    if (!required.has(key) && options.optional !== true) continue;
    out[key] = instanceOf(sub, options, key, depth + 1);
  }
  // A required name the schema does not describe (freee's schemas have a few) takes any value.
  for (const key of required) if (!(key in out)) out[key] = null;
  // A body with required alternatives (anyOf of `required` lists) takes the first.
  const alts = ((schema.anyOf ?? schema.oneOf ?? []) as Schema[]).map(resolveRef);
  for (const key of (alts[0]?.required ?? []) as string[]) if (!(key in out) && props[key] !== undefined) out[key] = instanceOf(props[key], options, key, depth + 1);
  return out;
}
