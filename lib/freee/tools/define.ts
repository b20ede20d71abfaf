import * as z from "../../core/zod";
import { checkValue, type HttpMethod, type ValidationIssue } from "../openapi/validator";
import type { FreeeRequest } from "../types";
import { operationByTemplate } from "../openapi/operations";
import type { InputSchemaSource } from "./input-schemas";
import { INPUT_SCHEMA_JSON } from "./input-schemas.generated";

/**
 * What a freee tool is (lib/freee/tools/registry.ts lists them): its name and Japanese description, whether it only
 * reads, the JSON Schema of its input (what tools/list and the catalogue show), how an input is read (coerced,
 * unknown keys refused) and the freee request an input makes. There is no `company_id` in any input: the company
 * is always the workspace's connected one (docs/architecture.md, the approved Process is the capability), never the model's choice.
 * Every request a tool makes is also checked against freee's schema for that operation (lib/freee/tools/normalise.ts).
 */
export type InputRead = { ok: true; input: Record<string, unknown> } | { ok: false; issues: string[] };

export interface FreeeToolDefinition {
  name: string;
  /** Japanese, for the agent and for the Process card. */
  description: string;
  /** Read-only tools are what an `agent_decide` step may use; the others write (`effect: "write"`). */
  readOnly: boolean;
  /** Self-contained JSON Schema of the input. */
  readonly inputSchema: Record<string, unknown>;
  /** A typed tool's: what its inputSchema is made from at build time (lib/freee/tools/input-schemas.ts). */
  inputSchemaSource?: InputSchemaSource;
  /** The freee operation a typed tool calls (`POST /api/1/deals`); the generic tools leave it undefined. */
  operation?: string;
  /** The generic tools: which method they send (their path says which operation). */
  method?: HttpMethod;
  /** `partial`: a plan-time read step may leave out what the agent fills in at run time. */
  readInput(raw: Record<string, unknown>, partial: boolean): InputRead;
  toRequest(input: Record<string, unknown>, companyId: number): FreeeRequest;
}

/** Issue texts as L3 and the agent read them: where, then freee's rule in Japanese. */
export function issueText(issue: ValidationIssue): string {
  return issue.in === "body" ? issue.message : `${issue.in === "path" ? "パス" : "クエリ"} ${issue.message}`;
}

/**
 * Reads an input against a JSON Schema in the vendored vocabulary: numbers from their digits, unknown keys refused,
 * and for a plan-time read step (`partial`) nothing required. The tools whose input is freee's own use it. The
 * schema is asked for on the first read: a Lambda that never reads this tool's input never parses it.
 */
export function schemaInputReader(name: string, inputSchema: () => Record<string, unknown>): FreeeToolDefinition["readInput"] {
  let optional: Record<string, unknown> | undefined;
  return (raw, partial) => {
    const input = structuredClone(raw);
    const schema = partial ? (optional ??= { ...inputSchema(), required: [] }) : inputSchema();
    const issues = checkValue(name + (partial ? " partial" : ""), schema, input, { coerce: true, closed: true });
    return issues.length > 0 ? { ok: false, issues: issues.map(issueText) } : { ok: true, input };
  };
}

const parsedSchemas = new Map<string, Record<string, unknown>>();

/**
 * A typed tool's input JSON Schema, as `npm run generate` wrote it (input-schemas.generated.ts), parsed on first
 * use. test/freee/tools/input-schemas.test.ts fails when the file is not what the sources give.
 */
export function generatedInputSchema(name: string): Record<string, unknown> {
  let schema = parsedSchemas.get(name);
  if (schema === undefined) {
    const json = INPUT_SCHEMA_JSON[name];
    if (json === undefined) throw new Error(`no generated input schema for ${name}: run \`npm run generate\``);
    parsedSchemas.set(name, (schema = JSON.parse(json) as Record<string, unknown>));
  }
  return schema;
}

/** A typed tool's definition with its generated input schema, read when first asked for. */
export function withGeneratedSchema(definition: Omit<FreeeToolDefinition, "inputSchema">): FreeeToolDefinition {
  return Object.defineProperty(definition, "inputSchema", { enumerable: true, get: () => generatedInputSchema(definition.name) }) as FreeeToolDefinition;
}

/** A tool whose input is a zod shape (reads, and the pay rule whose flat input is a better handle than freee's). */
export function zodTool<S extends z.core.$ZodShape>(definition: {
  name: string;
  description: string;
  readOnly: boolean;
  operation: string;
  inputShape: S;
  toRequest(input: z.infer<z.ZodMiniObject<S>>, companyId: number): FreeeRequest;
}): FreeeToolDefinition {
  const strict = z.strictObject(definition.inputShape);
  let partialSchema: z.ZodMiniType | undefined;
  return withGeneratedSchema({
    name: definition.name,
    description: definition.description,
    readOnly: definition.readOnly,
    operation: definition.operation,
    inputSchemaSource: { kind: "zod", schema: strict as unknown as z.ZodMiniObject },
    readInput(raw, partial) {
      const parsed = (partial ? (partialSchema ??= z.partial(strict)) : strict).safeParse(raw);
      if (!parsed.success) return { ok: false, issues: parsed.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message)) };
      // A JSON round trip drops keys whose value is undefined (optional fields left out by the schema).
      return { ok: true, input: JSON.parse(JSON.stringify(parsed.data)) as Record<string, unknown> };
    },
    toRequest: (input, companyId) => definition.toRequest(input as z.infer<z.ZodMiniObject<S>>, companyId),
  });
}

/**
 * A tool whose input is freee's own: the operation's path parameters and its body's fields side by side (minus
 * `company_id` and what `omit` names), validated by freee's schema. `branch` picks one alternative of a body that
 * freee gives as `anyOf` (the current one, not the legacy one). The schema is made at build time
 * (lib/freee/tools/input-schemas.ts); here only the operation's method and path are read, which need no schema.
 */
export function operationTool(definition: { name: string; description: string; operation: string; omit?: string[]; branch?: number }): FreeeToolDefinition {
  const { operation } = operationByTemplate(definition.operation);
  return withGeneratedSchema({
    name: definition.name,
    description: definition.description,
    readOnly: false,
    operation: definition.operation,
    inputSchemaSource: { kind: "operation", operation: definition.operation, ...(definition.omit === undefined ? {} : { omit: definition.omit }), ...(definition.branch === undefined ? {} : { branch: definition.branch }) },
    readInput: schemaInputReader(definition.name, () => generatedInputSchema(definition.name)),
    toRequest(input, companyId) {
      const fields = { ...input };
      const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
        const value = fields[name];
        delete fields[name];
        return encodeURIComponent(String(value));
      });
      return { method: operation.method, path, body: { company_id: companyId, ...fields } };
    },
  });
}
