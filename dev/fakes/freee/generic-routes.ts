import { fitsResponseSchema, responsesOf } from "../../../lib/freee/openapi/responses";
import { FREEE_OPERATIONS, type FreeeOperation } from "../../../lib/freee/openapi/validator";
import { badRequestBody, notFoundBody } from "./errors";
import { collection, findRecord, idParams, isBound, isCollectionPath, recordId, upsertCollection, type Rec } from "./generic-resources";
import type { RouteContext, RouteResult } from "./routes";
import { instanceOf, resolveRef, typesOf, type Schema } from "./schema-instance";
import { nextId, TAX_CODES } from "./state";

/**
 * Every vendored operation without a hand-written route (routes.ts, routes-more.ts): the request has passed freee's
 * schema; here the records its path names must exist (else freee's 404), the ids its body names must exist in the
 * company (accounting: partner, account item, tax code, section, item, tags; HR: employee; else freee's 400), and
 * the write changes what later reads see — a POST adds a record to its list, a PUT / PATCH sets the fields sent, a
 * DELETE removes it, so a values or gone read back (lib/freee/read-backs.ts) finds what happened. The answer is the
 * smallest body freee's response schema allows with the stored record laid over it where its fields fit.
 */

export function genericRoute(ctx: RouteContext, op: FreeeOperation): RouteResult {
  const params = ctx.pathParams;
  let subject: Rec | undefined;
  let subjectList: Rec[] | undefined;
  const ids = idParams(op, params);
  for (const p of ids) {
    const found = findRecord(ctx.company, p, params[p.name] as string, params);
    if (found === undefined) return [404, notFoundBody(ctx.api)];
    subject = found;
    subjectList = collection(ctx.company, p.collection);
  }
  const unknown = unknownReferences(ctx);
  if (unknown.length > 0) return [400, badRequestBody(ctx.api, unknown)];

  const status = successStatus(op);
  const here = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => params[name] as string);
  const segments = op.path.split("/");
  const last = segments.at(-1) as string;
  const lastIsRecord = ids.length > 0 && last === `{${ids.at(-1)?.name}}`;
  // `/{id}/actions`, `/{id}/cancel`: a write on the record itself; `/{employee_id}/profile_rule` (freee reads it too) is a resource of its own.
  const readable = FREEE_OPERATIONS.some((o) => o.method === "GET" && o.path === op.path);
  const verbOnRecord = !last.startsWith("{") && (segments.at(-2)?.startsWith("{") ?? false) && subject !== undefined && !isCollectionPath(op.path) && !readable;
  const fields = bodyFields(ctx.body, recordKey(op, status));

  if (op.method === "GET") {
    if (lastIsRecord) return answer(op, status, { record: subject as Rec });
    // What a PUT wrote to this path (an employee's attendance tags of a day) is what the GET answers.
    const written = ctx.company.singletons.get(here);
    if (written !== undefined) return answer(op, status, { record: written });
    if (isCollectionPath(op.path) || listKey(op, status) !== undefined) return answer(op, status, { list: filtered(collection(ctx.company, here), ctx.query) });
    return answer(op, status, { record: singleton(ctx, here) });
  }
  if (op.method === "DELETE") {
    if (lastIsRecord) subjectList?.splice(subjectList.indexOf(subject as Rec), 1);
    else ctx.company.singletons.delete(here);
    return answer(op, status, subject === undefined ? {} : { record: subject });
  }
  if (op.method === "POST" && !verbOnRecord) {
    const record: Rec = { ...fields, id: recordId(here, nextId()), company_id: ctx.company.id };
    collection(ctx.company, here).push(record);
    settle(ctx, here, record);
    return answer(op, status, { record });
  }
  const upsertInto = upsertCollection(op.path);
  if (upsertInto !== undefined) {
    const list = collection(ctx.company, upsertInto.replace(/\{([^}]+)\}/g, (_, name: string) => params[name] as string));
    const existing = list.find((r) => r.code !== undefined && r.code === fields.code);
    const record = existing ?? { id: recordId(op.path, nextId()), company_id: ctx.company.id };
    Object.assign(record, fields);
    if (existing === undefined) list.push(record);
    settle(ctx, upsertInto.replace(/\{([^}]+)\}/g, (_, name: string) => params[name] as string), record);
    return answer(op, status, { record });
  }
  if (lastIsRecord || verbOnRecord) {
    const owner = ids.at(-1)?.collection as string;
    // An action's body (approve, a remark) is not the record's fields: only cancel / uncancel change what freee shows.
    Object.assign(subject as Rec, verbOnRecord ? (VERBS[last] ?? (isBound(ctx.company, owner) ? {} : fields)) : fields);
    settle(ctx, owner, subject as Rec);
    return answer(op, status, { record: subject as Rec });
  }
  const record = singleton(ctx, here);
  Object.assign(record, fields);
  return answer(op, status, { record });
}

/**
 * A record written into a list the hand-written routes answer as stored (partners, account items…) is kept in the
 * shape that list answers: the fields its schema has, the required ones it lacks generated, the company id kept
 * where its neighbours carry one.
 */
function settle(ctx: RouteContext, path: string, record: Rec): void {
  // Employees are kept as routes.ts's Employee (a pay rule history), not as freee answers them.
  if (!isBound(ctx.company, path) || path === "/hr/api/v1/employees") return;
  const list = FREEE_OPERATIONS.find((o) => o.method === "GET" && new RegExp(`^${o.path.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path) && listKey(o, successStatus(o)) !== undefined);
  if (list === undefined) return;
  const key = listKey(list, successStatus(list)) as string;
  const items = resolveRef(objectParts(responseSchema(list, successStatus(list))).props[key]).items;
  const neighbour = collection(ctx.company, path).find((r) => r !== record);
  const shaped = conform(record, items) as Rec;
  for (const k of Object.keys(record)) if (!(k in shaped) && !(k === "company_id" && neighbour !== undefined && "company_id" in neighbour)) delete record[k];
  Object.assign(record, shaped);
}

/** The operation's success answer with this record in it (hand-written routes that keep their own state use it). */
export function recordAnswer(op: FreeeOperation, record: Rec): RouteResult {
  return answer(op, successStatus(op), { record });
}

/** What freee's cancel / uncancel set on a form (invoice, quotation, delivery slip…). */
const VERBS: Record<string, Rec> = { cancel: { cancel_status: "canceled" }, uncancel: { cancel_status: "uncanceled" } };

function singleton(ctx: RouteContext, path: string): Rec {
  let record = ctx.company.singletons.get(path);
  if (record === undefined) ctx.company.singletons.set(path, (record = { company_id: ctx.company.id }));
  return record;
}

/** The fields a write sets: the body without the company, unwrapped where it wraps them as the answer does. */
function bodyFields(body: Record<string, unknown>, key: string | undefined): Rec {
  const { company_id: _c, ...rest } = body;
  const inner = key === undefined ? undefined : rest[key];
  return inner !== null && typeof inner === "object" && !Array.isArray(inner) ? (inner as Rec) : rest;
}

/** A list narrowed by the query values that name a record field (`status=…`), or a range (`start_x` / `end_x`). */
function filtered(list: Rec[], query: URLSearchParams): Rec[] {
  const offset = Number(query.get("offset") ?? 0);
  const limit = Number(query.get("limit") ?? 100);
  const kept = list.filter((r) =>
    [...query].every(([k, v]) => {
      if (k === "company_id" || k === "limit" || k === "offset") return true;
      const range = /^(start|end)_(.+)$/.exec(k);
      if (range !== null) {
        const value = r[range[2] as string];
        return typeof value !== "string" || (range[1] === "start" ? value >= v : value <= v);
      }
      return !(k in r) || String(r[k]) === v;
    }),
  );
  return kept.slice(offset, offset + limit);
}

const REFERENCES: Record<string, (ctx: RouteContext) => readonly Rec[]> = {
  partner_id: (ctx) => ctx.company.partners,
  account_item_id: (ctx) => ctx.company.accountItems,
  section_id: (ctx) => ctx.company.sections,
  item_id: (ctx) => ctx.company.items,
  tag_ids: (ctx) => ctx.company.tags,
};

/** Ids in the body that name nothing in the company (freee answers 400 for them). */
function unknownReferences(ctx: RouteContext): string[] {
  const problems: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    if (node === null || typeof node !== "object" || Array.isArray(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const known = ctx.api === "accounting" ? REFERENCES[key] : key === "employee_id" && ctx.api === "hr" ? () => ctx.company.employees as unknown as Rec[] : undefined;
      const values = (Array.isArray(value) ? value : [value]).filter((v) => typeof v === "number");
      if (known !== undefined) for (const v of values) if (!known(ctx).some((r) => r.id === v)) problems.push(`${key} ${v} が存在しません。`);
      if (key === "tax_code" && ctx.api === "accounting") for (const v of values) if (!TAX_CODES.some((t) => t.code === v)) problems.push(`税区分 ${v} が存在しません。`);
      walk(value);
    }
  };
  walk(ctx.body);
  return problems;
}

/** The status freee answers a success with (201 for a POST that may answer 200 or 201). */
export function successStatus(op: FreeeOperation): number {
  const ok = Object.keys(responsesOf(op)).map(Number).filter((s) => s >= 200 && s < 300);
  return op.method === "POST" && ok.includes(201) ? 201 : (ok[0] ?? 200);
}

function responseSchema(op: FreeeOperation, status: number): Schema | undefined {
  const schema = responsesOf(op)[String(status)];
  return schema === null || schema === undefined ? undefined : schema;
}

/** Properties and required names of an object schema, its allOf parts merged. */
function objectParts(schemaIn: unknown): { props: Record<string, Schema>; required: Set<string> } {
  const schema = resolveRef(schemaIn);
  const parts = [schema, ...((schema.allOf ?? []) as unknown[]).map(resolveRef)];
  return {
    props: Object.assign({}, ...parts.map((p) => (p.properties ?? {}) as Record<string, Schema>)),
    required: new Set(parts.flatMap((p) => (p.required ?? []) as string[])),
  };
}

const isObjectSchema = (s: unknown): boolean => {
  const r = resolveRef(s);
  return typesOf(r)[0] === "object" || r.properties !== undefined || r.allOf !== undefined;
};

/** The property an answer wraps its record in (`{ expense_application: {…} }`), if it wraps one. */
function recordKey(op: FreeeOperation, status: number): string | undefined {
  const schema = responseSchema(op, status);
  if (schema === undefined || !isObjectSchema(schema)) return undefined;
  const { props, required } = objectParts(schema);
  const names = Object.keys(props);
  const wrappers = names.filter((k) => k !== "meta" && isObjectSchema(props[k]));
  const requiredWrappers = wrappers.filter((k) => required.has(k));
  if (names.length > 3) return undefined;
  if (requiredWrappers.length === 1) return requiredWrappers[0];
  return requiredWrappers.length === 0 && wrappers.length === 1 ? wrappers[0] : undefined;
}

/** The property an answer lists records in (`{ expense_applications: […], meta }`), if it lists. */
function listKey(op: FreeeOperation, status: number): string | undefined {
  const schema = responseSchema(op, status);
  if (schema === undefined || !isObjectSchema(schema)) return undefined;
  const { props } = objectParts(schema);
  return Object.keys(props).find((k) => k !== "meta" && typesOf(resolveRef(props[k]))[0] === "array" && isObjectSchema(resolveRef(props[k]).items));
}

function answer(op: FreeeOperation, status: number, fill: { record?: Rec; list?: Rec[] }): RouteResult {
  const schema = responseSchema(op, status);
  if (schema === undefined) return [status, null];
  if (!isObjectSchema(schema)) return [status, instanceOf(schema)];
  const body = instanceOf(schema) as Rec;
  const { props } = objectParts(schema);
  const list = fill.list === undefined ? undefined : listKey(op, status);
  if (list !== undefined && fill.list !== undefined) {
    body[list] = fill.list.map((r) => conform(r, resolveRef(props[list]).items));
    const meta = body.meta;
    if (meta !== null && typeof meta === "object" && "total_count" in objectParts(props.meta).props) (meta as Rec).total_count = fill.list.length;
    return [status, body];
  }
  if (fill.record === undefined) return [status, body];
  const key = recordKey(op, status);
  if (key !== undefined) body[key] = conform(fill.record, props[key]);
  else Object.assign(body, conform(fill.record, schema));
  return [status, body];
}

/** A stored record as the schema shows it: its fields that fit kept, the required ones it lacks generated. */
export function conform(value: unknown, schemaIn: unknown): unknown {
  if (schemaIn === undefined) return value;
  if (fitsResponseSchema(schemaIn as object, value)) return value;
  const schema = resolveRef(schemaIn);
  if (value === null || typeof value !== "object") return instanceOf(schema);
  if (Array.isArray(value)) return typesOf(schema)[0] === "array" ? value.map((v) => conform(v, schema.items)) : instanceOf(schema);
  if (!isObjectSchema(schema)) return instanceOf(schema);
  const { props, required } = objectParts(schema);
  const out: Rec = {};
  for (const [key, sub] of Object.entries(props)) {
    const v = (value as Rec)[key];
    if (v !== undefined) {
      const fitted = conform(v, sub);
      if (fitsResponseSchema(sub, fitted)) out[key] = fitted;
      else if (required.has(key)) out[key] = instanceOf(sub, {}, key);
    } else if (required.has(key)) out[key] = instanceOf(sub, {}, key);
  }
  for (const key of required) if (!(key in out)) out[key] = (value as Rec)[key] ?? null;
  return out;
}
