import { checkRequest } from "../openapi/validator";
import type { FreeeQueryValue } from "../types";
import { issueText, type FreeeToolDefinition, type InputRead } from "./define";
import { operationEntry, operationsByMethod, type OperationEntry } from "../openapi/operations";
import { TYPED_TOOLS } from "./typed-tools";
import { summaryOf, type GenericMethod } from "./summaries";
import { operationSchemaText } from "./schema-text";

/**
 * The generic freee tools (as the official freee-mcp has them): method + path + query + body, where the path must
 * be one of the operations vendored from freee's schemas (lib/freee/openapi/operations.ts) and the query and body must
 * validate against that operation's schema — at plan time (L3) and again in the MCP server, so a call freee would
 * refuse never reaches it. An operation with a typed tool is planned with that tool (one handle per operation, and
 * its inputs are the ones the preview and the reconciler know).
 */

/**
 * A freee API path (no query string) of one of the five APIs: what the generic tools and an `agent_decide` scope
 * name. A segment that names the company stays a placeholder (`{company_id}`): the server puts the connected one.
 */
export const FREEE_API_PATH = /^\/(api\/1|hr\/api\/v1|iv|pm|sm)(\/([A-Za-z0-9_.-]+|\{company_id\}|\{id\}))+$/;

/** What a plan writes where the path names the company: the parameter's own placeholder. */
const companyPlaceholder = (name: string) => `{${name}}`;

/** Only to satisfy the schema's `required: [company_id]` while checking: the request carries the connected one. */
const CHECK_COMPANY = 1;

/** Typed tool by the operation it calls (`POST /api/1/deals`). */
const TYPED_BY_OPERATION = new Map(TYPED_TOOLS.filter((t) => t.operation !== undefined).map((t) => [t.operation!, t.name]));

function typedToolOf(entry: OperationEntry): string | undefined {
  return entry.effect === "write" ? TYPED_BY_OPERATION.get(`${entry.operation.method} ${entry.operation.path}`) : undefined;
}

function isScalar(v: unknown): v is FreeeQueryValue {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}

function genericTool(method: GenericMethod): FreeeToolDefinition {
  const summary = summaryOf(`freee_api_${method.toLowerCase()}`);
  const { name, readOnly } = summary;
  const hasBody = method === "POST" || method === "PUT" || method === "PATCH";
  const operations = operationsByMethod(method).filter((e) => typedToolOf(e) === undefined);
  const properties: Record<string, unknown> = {
    path: { type: "string", description: "freee API のパス（/api/1/…, /hr/api/v1/…, /iv/…, /pm/…, /sm/…）。{id} などは実際の値にする（事業所を表す {company_id} はそのまま）。クエリ文字列は含めない" },
    query: { type: "object", additionalProperties: { type: ["string", "number", "boolean"] }, description: "クエリパラメータ（company_id は不要）" },
  };
  if (hasBody) properties.body = { type: "object", description: "リクエストボディ（JSON。company_id は不要）" };

  function readInput(raw: Record<string, unknown>, partial: boolean): InputRead {
    const issues: string[] = [];
    for (const key of Object.keys(raw)) if (!(key in properties)) issues.push(`${key} は不明な項目です（path, query${hasBody ? ", body" : ""} のみ）`);
    const { path, query = {}, body } = raw as { path?: unknown; query?: unknown; body?: unknown };
    if (typeof path !== "string" || !FREEE_API_PATH.test(path)) issues.push("path は freee API のパス（/api/1/…, /hr/api/v1/…, /iv/…, /pm/… または /sm/…、クエリ文字列なし）で指定してください");
    if (typeof query !== "object" || query === null || Array.isArray(query) || !Object.values(query).every(isScalar)) issues.push("query は文字列・数値・真偽値の値を持つオブジェクトで指定してください");
    if (body !== undefined && (typeof body !== "object" || body === null || Array.isArray(body))) issues.push("body は JSON オブジェクトで指定してください");
    if (issues.length > 0) return { ok: false, issues };
    const found = operationEntry(method, path as string);
    if (found === undefined) return { ok: false, issues: [`${method} ${String(path)} は freee API の操作ではありません（${name} の説明にある操作だけを使えます）`] };
    const { entry, pathParams } = found;
    const companyParam = entry.company.pathParam;
    if (companyParam !== undefined && pathParams[companyParam] !== companyPlaceholder(companyParam)) {
      return { ok: false, issues: [`path の事業所は ${companyPlaceholder(companyParam)} のまま書いてください（接続中の事業所が入ります）`] };
    }
    if (companyParam === undefined && Object.values(pathParams).some((v) => /[{}]/.test(v))) {
      return { ok: false, issues: [`path の {…} は実際の値にしてください（${String(path)}）`] };
    }
    const typed = typedToolOf(entry);
    if (typed !== undefined) return { ok: false, issues: [`${method} ${entry.operation.path} は ${typed} で指定してください`] };
    const check = checkRequest(
      {
        method,
        path: withCompanyInPath(path as string, entry, CHECK_COMPANY),
        query: { ...(query as Record<string, FreeeQueryValue>), ...(entry.company.query ? { company_id: CHECK_COMPANY } : {}) },
        body: entry.company.body ? { ...((body ?? {}) as Record<string, unknown>), company_id: CHECK_COMPANY } : body,
      },
      { unknownProperties: "reject", coerceBody: true },
    );
    if (!check.ok) {
      if (check.reason === "unknown_operation") return { ok: false, issues: [`${method} ${String(path)} は freee API の操作ではありません`] };
      // A plan-time read step may leave out what the agent fills in at run time.
      const left = check.issues.filter((i) => !(partial && i.keyword === "required"));
      // The operation's own inputs go with its issues: the catalogue names the operation only, and the retry
      // (the validation error handed back to the planner) is where its schema is needed.
      if (left.length > 0) return { ok: false, issues: [...left.map(issueText), operationSchemaText(check.operation)] };
      return { ok: true, input: { path, ...(Object.keys(query as object).length > 0 ? { query } : {}), ...(body === undefined ? {} : { body }) } };
    }
    const { company_id: _q, ...normalQuery } = check.normalised.query;
    const input: Record<string, unknown> = { path };
    if (Object.keys(normalQuery).length > 0) input.query = normalQuery;
    if (hasBody) {
      const { company_id: _b, ...normalBody } = (check.normalised.body ?? {}) as Record<string, unknown>;
      if (body !== undefined || Object.keys(normalBody).length > 0) input.body = normalBody;
    }
    return { ok: true, input };
  }

  return {
    ...summary,
    // The operations are not listed here: 300 of them in every tool description would fill L3's prompt and every
    // tools/list. The catalogue (lib/model/tool-catalogue.ts) names them, one line each.
    description: `${summary.description}パスは freee の操作一覧（${operations.length} 件）のどれかです。`,
    inputSchema: { type: "object", properties, required: ["path"], additionalProperties: false },
    readInput,
    toRequest(input, companyId) {
      const entry = operationEntry(method, String(input.path))?.entry;
      const path = entry === undefined ? String(input.path) : withCompanyInPath(String(input.path), entry, companyId);
      const query = { ...((input.query ?? {}) as Record<string, FreeeQueryValue>) };
      if (entry?.company.query === true) query.company_id = companyId;
      const body = entry?.company.body === true ? { ...((input.body ?? {}) as Record<string, unknown>), company_id: companyId } : (input.body as Record<string, unknown> | undefined);
      return { method, path, ...(Object.keys(query).length > 0 ? { query } : {}), ...(body === undefined ? {} : { body }) };
    },
  };
}

/** The path with the connected company where the operation's path names it (the plan wrote the placeholder). */
function withCompanyInPath(path: string, entry: OperationEntry, companyId: number): string {
  const name = entry.company.pathParam;
  if (name === undefined) return path;
  const template = entry.operation.path.split("/");
  return path
    .split("/")
    .map((segment, i) => (template[i] === companyPlaceholder(name) ? String(companyId) : segment))
    .join("/");
}

export const GENERIC_TOOLS: readonly FreeeToolDefinition[] = (["GET", "POST", "PUT", "PATCH", "DELETE"] as const)
  .filter((m) => operationsByMethod(m).length > 0)
  .map(genericTool);

/** Every operation a generic tool serves, for the catalogue. */
export function genericOperations(tool: FreeeToolDefinition): OperationEntry[] {
  return tool.method === undefined ? [] : operationsByMethod(tool.method).filter((e) => typedToolOf(e) === undefined);
}
