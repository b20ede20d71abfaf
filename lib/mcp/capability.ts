import type { ProcessStep } from "../core/domain/records";
import { getPath, normaliseToolInput, stableJson } from "../freee/tools/normalise";
import { AGENT_DECIDE, effectOfStep } from "../freee/tools/summaries";
import type { FreeeToolDefinition } from "../freee/tools/registry";
import { LIVE_EXECUTION_STATUSES, type ExecutionScope } from "./execution-scope";
import { refusal, RefusalTexts, type Refusal } from "./refusals";

/**
 * The approved Process is the capability (docs/architecture.md, the approved Process is the capability). Pure: given the execution's scope, the tool, the input the
 * agent sent and the connected company, decide what the call may do.
 * - A write runs only as an approved write step: same tool, same normalised input. Each match is a candidate
 *   step (two identical approved writes are two steps); the write ledger then lets each run once per Task.
 * - A read runs only as an approved read step — same tool, same normalised input, only paging parameters
 *   (limit / offset / page / per_page) may differ; the free-form GET's path is part of that input, so its exact
 *   operation and path parameters, never a prefix — or within an `agent_decide` scope: a tool it names, and for
 *   the free-form GET a path under one of its prefixes, never the list of companies (`/api/1/companies`).
 * - `company_id` is the connected company: one the agent names must be it (and leaves the input), and no path
 *   may reach into another company.
 */
export type Permit =
  | { kind: "read"; input: Record<string, unknown>; stepIds: string[] }
  | { kind: "write"; input: Record<string, unknown>; canonical: string; candidates: ProcessStep[] };

/** Checks that need no freee connection: the run is live and some step names the tool. */
export function precheck(scope: ExecutionScope, tool: FreeeToolDefinition): Refusal | undefined {
  if (!LIVE_EXECUTION_STATUSES.has(scope.executionStatus)) {
    return refusal("execution_not_live", RefusalTexts.executionNotLive(scope.executionStatus), { executionStatus: scope.executionStatus });
  }
  // Stamped with freee's throttle, the run ends at the next poll: no call meanwhile (freee refuses them for its ten
  // minutes, and a write that landed after it lifted would be one the ending run no longer reports). A changed
  // company keeps its own refusal per call (company_changed).
  if (scope.fault?.errorName === "FreeeThrottledError") return refusal("run_faulted", RefusalTexts.runFaulted(scope.fault), { errorName: scope.fault.errorName });
  const named = tool.readOnly ? readGrants(scope.steps, tool, undefined).length > 0 : writeSteps(scope.steps, tool.name).length > 0;
  if (!named) {
    return refusal("not_approved", RefusalTexts.notApproved(tool.name, [...scope.allowedTools]), { allowedTools: [...scope.allowedTools] });
  }
  return undefined;
}

export function permitCall(scope: ExecutionScope, tool: FreeeToolDefinition, args: Record<string, unknown>, companyId: number): Permit | Refusal {
  const early = precheck(scope, tool);
  if (early !== undefined) return early;
  // What the path reaches is judged before its shape: another company, or outside the scope, whatever the schema says.
  if (tool.name === "freee_api_get" && typeof args.path === "string") {
    const outside = pathRefusal(scope, tool, args.path, companyId);
    if (outside !== undefined) return outside;
  }
  if (tool.method !== undefined && typeof args.path === "string" && otherCompanyInPath(args.path, companyId)) {
    return refusal("company_mismatch", RefusalTexts.companyMismatch(), { path: args.path });
  }
  const normal = normaliseToolInput(tool, args, { companyId });
  if (!normal.ok) {
    return normal.reason === "company_mismatch"
      ? refusal("company_mismatch", RefusalTexts.companyMismatch(), { issues: normal.issues })
      : refusal("invalid_input", RefusalTexts.invalidInput(tool.name, normal.issues), { issues: normal.issues });
  }
  return tool.readOnly ? permitRead(scope, tool, normal.input, companyId) : permitWrite(scope, tool, normal.input, normal.canonical, companyId);
}

/** What may vary between an approved read and its call: the page of the answer, never what is read. */
export const PAGING_KEYS: ReadonlySet<string> = new Set(["limit", "offset", "page", "per_page"]);

/** freee's list of every company the connected freee user can see: never granted by a scope (another company's name). */
const COMPANY_LIST = /^\/api\/1\/companies\/?$/;

interface ReadGrant {
  stepId: string;
  /** A read step: its input, normalised and without paging; the call must be it. */
  exact?: string;
  /** A read step's free-form GET: the one path it reads. */
  path?: string;
  /** An `agent_decide` scope's free-form GET: the paths it reads under (never the company list). */
  prefixes?: string[];
}

function readGrants(steps: readonly ProcessStep[], tool: FreeeToolDefinition, companyId: number | undefined): ReadGrant[] {
  const grants: ReadGrant[] = [];
  for (const step of steps) {
    if (step.tool === AGENT_DECIDE) {
      // A record from before read scopes has none: it may read nothing (fail closed).
      if (step.readScope?.tools.includes(tool.name) === true) grants.push({ stepId: step.stepId, prefixes: step.readScope.pathPrefixes ?? [] });
    } else if (step.tool === tool.name && effectOfStep(step) === "read") {
      const path = step.toolInput.path;
      // Normalised as the call is; a step the schema no longer reads whole grants nothing (fail closed).
      const normal = companyId === undefined ? undefined : normaliseToolInput(tool, step.toolInput, { companyId });
      grants.push({
        stepId: step.stepId,
        exact: normal?.ok === true ? withoutPaging(tool, normal.input) : "",
        ...(typeof path === "string" ? { path } : {}),
      });
    }
  }
  return grants;
}

/** The canonical input without its paging parameters (top level; a generic tool's query). */
function withoutPaging(tool: FreeeToolDefinition, input: Record<string, unknown>): string {
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(input).filter(([k]) => !PAGING_KEYS.has(k)));
  if (tool.method !== undefined && typeof out.query === "object" && out.query !== null) {
    const query = Object.fromEntries(Object.entries(out.query as Record<string, unknown>).filter(([k]) => !PAGING_KEYS.has(k)));
    if (Object.keys(query).length === 0) delete out.query;
    else out.query = query;
  }
  return stableJson(out);
}

/** A scope's GET covers the path (whole segments), and no scope covers the company list. */
function scopeCovers(grant: ReadGrant, path: string): boolean {
  return grant.prefixes !== undefined && !COMPANY_LIST.test(path) && grant.prefixes.some((prefix) => isUnder(path, prefix));
}

function permitRead(scope: ExecutionScope, tool: FreeeToolDefinition, input: Record<string, unknown>, companyId: number): Permit | Refusal {
  const grants = readGrants(scope.steps, tool, companyId);
  const path = typeof input.path === "string" ? input.path : undefined;
  if (path !== undefined) {
    const outside = pathRefusal(scope, tool, path, companyId);
    if (outside !== undefined) return outside;
  }
  const call = withoutPaging(tool, input);
  const stepIds = grants.filter((g) => (g.exact !== undefined ? g.exact === call : path === undefined || scopeCovers(g, path))).map((g) => g.stepId);
  if (stepIds.length > 0) return { kind: "read", input, stepIds };
  // Named by a step, but not with this input: a read step grants its approved input, only the page may differ.
  const steps = grants.filter((g) => g.exact !== undefined);
  const approved = steps.map((g) => ({ stepId: g.stepId, input: scope.steps.find((s) => s.stepId === g.stepId)!.toolInput }));
  const first = steps[0]?.exact;
  return refusal("outside_read_scope", RefusalTexts.readInputMismatch(tool.name, approved), {
    approved,
    differingKeys: differingKeys(JSON.parse(call) as Record<string, unknown>, first === undefined || first === "" ? undefined : JSON.parse(first)),
  });
}

function otherCompanyInPath(path: string, companyId: number): boolean {
  const other = /\/companies\/(\d+)(?:\/|$)/.exec(path);
  return other !== null && Number(other[1]) !== companyId;
}

/** The free-form GET reads only the connected company, and only its read step's path or under its scope's prefixes. */
function pathRefusal(scope: ExecutionScope, tool: FreeeToolDefinition, path: string, companyId: number): Refusal | undefined {
  if (otherCompanyInPath(path, companyId)) return refusal("company_mismatch", RefusalTexts.companyMismatch(), { path });
  const grants = readGrants(scope.steps, tool, undefined);
  if (grants.some((g) => (g.path !== undefined && g.path === path) || scopeCovers(g, path))) return undefined;
  const allowed = [...new Set(grants.flatMap((g) => [...(g.path === undefined ? [] : [g.path]), ...(g.prefixes ?? []).map((p) => `${p}/…`)]))];
  return refusal("outside_read_scope", RefusalTexts.outsideReadScope(tool.name, `パス ${path}`, allowed), { path, allowedPaths: allowed, ...(COMPANY_LIST.test(path) ? { companyList: true } : {}) });
}

/** Path-segment prefix: `/api/1/deals` covers `/api/1/deals/12`, not `/api/1/deals_extra`. */
function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`);
}

function writeSteps(steps: readonly ProcessStep[], tool: string): ProcessStep[] {
  return steps.filter((s) => s.tool === tool && effectOfStep(s) === "write");
}

function permitWrite(scope: ExecutionScope, tool: FreeeToolDefinition, input: Record<string, unknown>, canonical: string, companyId: number): Permit | Refusal {
  const steps = writeSteps(scope.steps, tool.name);
  const unresolved = steps.filter((s) => (s.nameRefs ?? []).some((ref) => getPath(s.toolInput, ref.field) === undefined));
  const ready = steps.filter((s) => !unresolved.includes(s));
  const approved = ready.map((s) => ({ step: s, normal: normaliseToolInput(tool, s.toolInput, { companyId }) }));
  const candidates = approved.filter((a) => a.normal.ok && a.normal.canonical === canonical).map((a) => a.step);
  if (candidates.length > 0) return { kind: "write", input, canonical, candidates };
  if (ready.length === 0) {
    const names = unresolved.flatMap((s) => (s.nameRefs ?? []).map((r) => r.name));
    return refusal("unresolved_name", RefusalTexts.unresolvedName(unresolved.map((s) => s.stepId), names), { stepIds: unresolved.map((s) => s.stepId) });
  }
  const shown = approved.map((a) => ({ stepId: a.step.stepId, input: a.normal.ok ? a.normal.input : a.step.toolInput }));
  return refusal("input_mismatch", RefusalTexts.inputMismatch(tool.name, shown), {
    input,
    approved: shown,
    differingKeys: differingKeys(input, shown[0]?.input),
  });
}

/** Top-level keys whose values differ: what the audit shows of an attempted write that was not approved. */
function differingKeys(call: Record<string, unknown>, approved: unknown): string[] {
  if (approved === null || typeof approved !== "object") return Object.keys(call).sort();
  const a = approved as Record<string, unknown>;
  const keys = new Set([...Object.keys(call), ...Object.keys(a)]);
  return [...keys].filter((k) => JSON.stringify(call[k]) !== JSON.stringify(a[k])).sort();
}
