import { z } from "zod";
import { ProcessStepSchema, type ProcessStep } from "../domain/records";
import { AGENT_DECIDE, getTool, isKnownTool } from "../tools/registry";

/**
 * Reading L3's steps. The first checks are seed §3.3 `_validate_steps`, in its order and with its messages:
 * `steps` present, non-empty, every step has stepId/order/tool/toolInput, tool known (registry or
 * agent_decide). Then what a run needs beyond the seed: types, unique ids and orders, and the tool's own input
 * shape. All problems are reported together, so one retry can fix them all.
 */

export const REQUIRED_STEP_KEYS = ["stepId", "order", "tool", "toolInput"] as const;

/** agent_decide carries an instruction for the agent, nothing else. */
const AgentDecideInput = z.strictObject({ instruction: z.string().min(1) });

/**
 * Keys must be the tool's, present values must have the tool's types. A value that an earlier step decides
 * (an employee id found by a list step) is left out on purpose; the agent fills it at run time.
 */
function inputSchemaFor(tool: string): z.ZodType | undefined {
  if (tool === AGENT_DECIDE) return AgentDecideInput;
  const definition = getTool(tool);
  return definition && z.strictObject(definition.inputShape).partial();
}

type Issue = { message: string; path: PropertyKey[] };

export function checkSteps(raw: unknown): { steps: ProcessStep[] } | { issues: Issue[] } {
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
    const toolInput = read.value;
    const inputCheck = inputSchemaFor(tool)?.safeParse(toolInput);
    if (inputCheck && !inputCheck.success) {
      for (const i of inputCheck.error.issues) {
        issues.push({ message: `Step ${String(step.stepId)} (${tool}) toolInput: ${i.message}`, path: [...path, "toolInput", ...i.path] });
      }
      return;
    }
    const parsed = ProcessStepSchema.safeParse({ stepId: step.stepId, order: step.order, tool, toolInput });
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
export const L3ReplySchema: z.ZodType<{ steps: ProcessStep[] }> = z.unknown().transform((raw, ctx) => {
  const result = checkSteps(raw);
  if ("issues" in result) {
    for (const issue of result.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    return z.NEVER;
  }
  return result;
});
