import * as z from "../core/zod";
import { NameRefSchema, ProcessStepSchema, ReadScopeSchema, type NameRef, type ProcessStep, type ReadScope, type SlackFileRef } from "../core/domain/records";
import { getPath, normaliseToolInput } from "../freee/tools/normalise";
import { AGENT_DECIDE, effectOfStep, isKnownTool, UPLOAD_RECEIPT_TOOL } from "../freee/tools/summaries";
import { FREEE_GET_PATH, getTool, type FreeeToolDefinition } from "../freee/tools/registry";
import { periodProblems } from "./input-dates";

/**
 * Reading L3's steps. The first checks, in this order and with these messages:
 * `steps` present, non-empty, every step has stepId/order/tool/toolInput, tool known (registry or
 * agent_decide). Then what a run needs beyond them (docs/architecture.md, the approved Process is the capability):
 * - the step's `effect`, when given, is its tool's (a write tool is a write step);
 * - a write step is fully specified: its input passes the tool's whole schema, so what is approved is exactly
 *   what the MCP server will let run. A value the request gave as a name is listed in `nameRefs` (resolved to
 *   the id before approval), never left for the agent to guess;
 * - a read step is fully specified too: the MCP server serves it with exactly this input (only paging may vary),
 *   so what the agent decides at run time belongs in an `agent_decide` step;
 * - an `agent_decide` step names the read tools it may use (and, for the free-form GET, the path prefixes);
 * - no step chooses `company_id`: the connected company is always used;
 * - every date is a real day (freee's format rules, in the schema checks above) and every start/end period runs
 *   forwards (lib/model/input-dates.ts).
 * Input is stored normalised (numbers as numbers). All problems are reported together, so one retry can fix them.
 * Accepts both L3's wire form (the agent_decide scope inside `toolInput`) and stored records (so the pipeline's
 * second check of the same steps passes unchanged).
 */

export const REQUIRED_STEP_KEYS = ["stepId", "order", "tool", "toolInput"] as const;

/** agent_decide as L3 writes it: the instruction and, unless the record form carries `readScope`, the scope. */
const AgentDecideInput = z.strictObject({
  instruction: z.string().check(z.minLength(1)),
  tools: z.optional(z.array(z.string().check(z.minLength(1))).check(z.minLength(1))),
  pathPrefixes: z.optional(z.array(z.string().check(z.minLength(1)))),
});

/** Placeholder that stands for a named value while the schema checks the rest of a write step. */
const RESOLVED_LATER = 1;

type Issue = { message: string; path: PropertyKey[] };

/** What the request gives a plan beyond its text: the files shared with it (undefined: not known here, not checked). */
export interface StepContext {
  attachments?: readonly SlackFileRef[];
}

export function checkSteps(raw: unknown, context: StepContext = {}): { steps: ProcessStep[] } | { issues: Issue[] } {
  const issues: Issue[] = [];
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { issues: [{ message: "reply is not a JSON object", path: [] }] };
  }
  if (!("steps" in raw)) return { issues: [{ message: "steps key missing", path: ["steps"] }] };
  const list = (raw as { steps: unknown }).steps;
  if (!Array.isArray(list)) return { issues: [{ message: "steps is not an array", path: ["steps"] }] };
  if (list.length === 0) return { issues: [{ message: "steps array is empty", path: ["steps"] }] };

  const steps: ProcessStep[] = [];
  list.forEach((item: unknown, index) => {
    const path = ["steps", index];
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      issues.push({ message: `Step #${index + 1} is not an object`, path });
      return;
    }
    const step = item as Record<string, unknown>;
    const missing = REQUIRED_STEP_KEYS.filter((k) => !(k in step));
    if (missing.length > 0) {
      const id = typeof step.stepId === "string" ? step.stepId : "?";
      issues.push({ message: `Step ${id} missing keys: ${missing.join(", ")}`, path });
      return;
    }
    const tool = step.tool;
    if (typeof tool !== "string" || !isKnownTool(tool)) {
      issues.push({ message: `Unknown tool: ${String(tool)}`, path: [...path, "tool"] });
      return;
    }
    const read = readToolInput(step.toolInput);
    if ("problem" in read) {
      issues.push({ message: `Step ${String(step.stepId)}: toolInput ${read.problem}`, path: [...path, "toolInput"] });
      return;
    }
    const label = `Step ${String(step.stepId)} (${tool})`;
    const report = (message: string, at: PropertyKey[] = []) => issues.push({ message: `${label} ${message}`, path: [...path, ...at] });
    const effect = effectOfStep({ tool });
    if (step.effect !== undefined && step.effect !== effect) {
      report(`effect: ${JSON.stringify(step.effect)} but this tool ${effect === "write" ? "writes" : "only reads"} (effect must be "${effect}")`, ["effect"]);
      return;
    }
    if (tool === AGENT_DECIDE && Array.isArray(step.nameRefs) && step.nameRefs.length > 0) {
      report("nameRefs: only write steps carry names to resolve", ["nameRefs"]);
      return;
    }
    const shaped = tool === AGENT_DECIDE ? agentDecideStep(read.value, step.readScope, report) : toolStep(getTool(tool)!, read.value, step.nameRefs, report);
    if (shaped === undefined) return;
    const backwards = periodProblems(shaped.toolInput);
    if (backwards.length > 0) {
      backwards.forEach((p) => report(`toolInput: ${p}`, ["toolInput"]));
      return;
    }
    if (tool === UPLOAD_RECEIPT_TOOL && context.attachments !== undefined) {
      const problem = attachmentProblem(shaped.toolInput.slack_file_id, context.attachments);
      if (problem !== undefined) {
        report(problem, ["toolInput", "slack_file_id"]);
        return;
      }
    }
    const parsed = ProcessStepSchema.safeParse({ stepId: step.stepId, order: step.order, tool, effect, ...shaped });
    if (!parsed.success) {
      for (const i of parsed.error.issues) issues.push({ message: `Step ${String(step.stepId)}: ${i.path.join(".")} ${i.message}`, path: [...path, ...i.path] });
      return;
    }
    steps.push(parsed.data);
  });

  duplicates(steps.map((s) => s.stepId)).forEach((id) => issues.push({ message: `duplicate stepId: ${id}`, path: ["steps"] }));
  duplicates(steps.map((s) => s.order)).forEach((o) => issues.push({ message: `duplicate order: ${o}`, path: ["steps"] }));
  if (issues.length > 0) return { issues };
  return { steps: [...steps].sort((a, b) => a.order - b.order) };
}

type Report = (message: string, at?: PropertyKey[]) => void;

/** An upload names one of the request's files, by the id the request message gave it. */
function attachmentProblem(fileId: unknown, attachments: readonly SlackFileRef[]): string | undefined {
  if (attachments.some((a) => a.fileId === fileId)) return undefined;
  const listed = attachments.map((a) => `${a.fileId} (${a.name})`).join(", ");
  return `slack_file_id: ${JSON.stringify(fileId)} is not a file of the request message (${listed === "" ? "the request has no files: do not plan an upload" : `its files: ${listed}`})`;
}
type Shaped = Pick<ProcessStep, "toolInput" | "readScope" | "nameRefs">;

function agentDecideStep(input: Record<string, unknown>, recordScope: unknown, report: Report): Shaped | undefined {
  const parsed = AgentDecideInput.safeParse(input);
  if (!parsed.success) {
    for (const i of parsed.error.issues) report(`toolInput: ${i.path.length > 0 ? `${i.path.join(".")}: ` : ""}${i.message}`, ["toolInput", ...i.path]);
    return undefined;
  }
  const { instruction, tools, pathPrefixes } = parsed.data;
  if (tools !== undefined && recordScope !== undefined) {
    report("gives its read scope twice (toolInput.tools and readScope)", ["readScope"]);
    return undefined;
  }
  const scopeRead = ReadScopeSchema.safeParse(recordScope ?? { tools, ...(pathPrefixes === undefined ? {} : { pathPrefixes }) });
  if (!scopeRead.success) {
    report(`toolInput: tools must name the read tools this step may use (at least one)`, ["toolInput", "tools"]);
    return undefined;
  }
  const scope: ReadScope = scopeRead.data;
  let ok = true;
  for (const name of scope.tools) {
    const definition = getTool(name);
    if (definition === undefined || !definition.readOnly) {
      report(`toolInput.tools: ${name} is not a read tool (agent_decide never writes)`, ["toolInput", "tools"]);
      ok = false;
    }
  }
  const usesGet = scope.tools.includes("freee_api_get");
  const prefixes = scope.pathPrefixes ?? [];
  if (usesGet && prefixes.length === 0) {
    report("toolInput.pathPrefixes: freee_api_get needs the path prefixes it may read", ["toolInput", "pathPrefixes"]);
    ok = false;
  }
  if (!usesGet && prefixes.length > 0) {
    report("toolInput.pathPrefixes: only freee_api_get reads by path", ["toolInput", "pathPrefixes"]);
    ok = false;
  }
  for (const prefix of prefixes) {
    if (!FREEE_GET_PATH.test(prefix)) {
      report(`toolInput.pathPrefixes: ${prefix} is not a freee API path (/api/1/…, /hr/api/v1/… or /iv/…)`, ["toolInput", "pathPrefixes"]);
      ok = false;
    }
  }
  return ok ? { toolInput: { instruction }, readScope: scope } : undefined;
}

function toolStep(tool: FreeeToolDefinition, input: Record<string, unknown>, rawRefs: unknown, report: Report): Shaped | undefined {
  const refs = z.optional(z.array(NameRefSchema)).safeParse(rawRefs);
  if (!refs.success) {
    report("nameRefs: each entry needs field and name", ["nameRefs"]);
    return undefined;
  }
  const nameRefs = refs.data ?? [];
  if (tool.readOnly) {
    if (nameRefs.length > 0) {
      report("nameRefs: only write steps carry names to resolve", ["nameRefs"]);
      return undefined;
    }
    if (tool.name === "freee_api_get" && typeof input.path !== "string") {
      // The path is the read's scope: an unnamed path would open every GET.
      report("toolInput: path is required (it is the scope of this read)", ["toolInput", "path"]);
      return undefined;
    }
    const normal = normaliseToolInput(tool, input);
    if (!normal.ok) {
      normal.issues.forEach((i) => report(`toolInput: ${i}`, ["toolInput"]));
      return undefined;
    }
    return { toolInput: normal.input };
  }
  const withPlaceholders = structuredClone(input);
  for (const ref of nameRefs) {
    const problem = nameRefProblem(ref);
    if (problem !== undefined) {
      report(`nameRefs: ${ref.field} ${problem}`, ["nameRefs"]);
      return undefined;
    }
    if (getPath(withPlaceholders, ref.field) === undefined && !setPath(withPlaceholders, ref.field, RESOLVED_LATER)) {
      report(`nameRefs: ${ref.field} is not a place in toolInput`, ["nameRefs"]);
      return undefined;
    }
  }
  const normal = normaliseToolInput(tool, withPlaceholders);
  if (!normal.ok) {
    // A write step must be complete at approval time: what is approved is what runs.
    normal.issues.forEach((i) => report(`toolInput: ${i} (a write step must be fully specified)`, ["toolInput"]));
    return undefined;
  }
  const toolInput = normal.input;
  for (const ref of nameRefs) if (getPath(input, ref.field) === undefined) deletePath(toolInput, ref.field);
  return { toolInput, ...(nameRefs.length > 0 ? { nameRefs } : {}) };
}

function nameRefProblem(ref: NameRef): string | undefined {
  const parts = ref.field.split(".");
  if (parts.some((p) => p === "")) return "is not a dotted path";
  if (!parts.at(-1)!.endsWith("_id")) return "is not an id field (names stand for ids only)";
  return undefined;
}

function setPath(root: Record<string, unknown>, field: string, value: unknown): boolean {
  const parts = field.split(".");
  const parent = getPath(root, parts.slice(0, -1).join(".")) ?? (parts.length === 1 ? root : undefined);
  if (parent === null || typeof parent !== "object") return false;
  (parent as Record<string, unknown>)[parts.at(-1)!] = value;
  return true;
}

function deletePath(root: Record<string, unknown>, field: string): void {
  const parts = field.split(".");
  const parent = parts.length === 1 ? root : getPath(root, parts.slice(0, -1).join("."));
  if (parent !== null && typeof parent === "object") delete (parent as Record<string, unknown>)[parts.at(-1)!];
}

/** Structured outputs carry toolInput as a JSON string; a fenced fallback reply may carry the object itself. */
function readToolInput(value: unknown): { value: Record<string, unknown> } | { problem: string } {
  let candidate = value;
  if (typeof value === "string") {
    try {
      candidate = JSON.parse(value);
    } catch (err) {
      return { problem: `is not valid JSON (${(err as Error).message})` };
    }
  }
  return typeof candidate === "object" && candidate !== null && !Array.isArray(candidate)
    ? { value: candidate as Record<string, unknown> }
    : { problem: "is not a JSON object" };
}

function duplicates<T>(values: readonly T[]): T[] {
  const seen = new Set<T>();
  const dup = new Set<T>();
  for (const v of values) (seen.has(v) ? dup : seen).add(v);
  return [...dup];
}

/** The checks as a zod schema, so a failure is a ZodError (the MalformedOutputError's cause) with issues. */
export const L3ReplySchema: z.ZodMiniType<{ steps: ProcessStep[] }> = z.pipe(z.unknown(), z.transform((raw, ctx) => {
  const result = checkSteps(raw);
  if ("issues" in result) {
    for (const issue of result.issues) ctx.issues.push({ code: "custom", message: issue.message, path: issue.path, input: raw });
    return z.NEVER;
  }
  return result;
}));
