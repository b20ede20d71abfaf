import type { Ajv, ValidateFunction } from "ajv";
import vendored from "./freee-responses.json";
import { compileWith, derefSchema, makeAjv, toIssue, type FreeeApi, type FreeeOperation, type ValidationIssue } from "./validator";

/**
 * freee's answers as its schemas describe them: per operation, status → schema of the success body (null for a
 * status whose body is an error shape), and the components only those reach (error bodies included). The freee
 * fake checks its own answers with them; no Lambda does, so they live apart from the request schemas
 * (freee-operations.json) and stay out of every bundle. Both files are written by scripts/vendor-freee-openapi.ts.
 */
interface VendoredResponses {
  responses: Record<string, Record<string, Record<string, unknown> | null>>;
  schemas: Record<string, unknown>;
}

const APIS = (vendored as unknown as { apis: Record<FreeeApi, VendoredResponses> }).apis;

/** Status → schema of the operation's answers (as vendored). */
export function responsesOf(operation: FreeeOperation): Record<string, Record<string, unknown> | null> {
  return APIS[operation.api]?.responses[`${operation.method} ${operation.path}`] ?? {};
}

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

/** Issues of a success body against the operation's response schema (the fake checks its own answers). */
export function checkResponse(operation: FreeeOperation, status: number, body: unknown): ValidationIssue[] {
  const schema = responsesOf(operation)[String(status)];
  if (schema === undefined) return [{ in: "body", at: "", keyword: "status", message: `${operation.operationId} は ${status} を返しません` }];
  if (schema === null) return [];
  const key = `${operation.method} ${operation.path} response ${status}`;
  let fn = compiled.get(key);
  if (fn === undefined) {
    ajv ??= makeAjv(false, false, (api) => APIS[api].schemas);
    fn = compileWith(ajv, schema);
    compiled.set(key, fn);
  }
  return fn(body) ? [] : (fn.errors ?? []).map((e) => toIssue("body", e));
}

/** A response schema with every `$ref` replaced (request and response components both). */
export function derefResponse(node: unknown): unknown {
  return derefSchema(node, (api) => APIS[api].schemas);
}
