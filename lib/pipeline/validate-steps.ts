import { z } from "zod";
import { ProcessStepSchema, type ProcessStep } from "../domain/records";
import { MalformedOutputError } from "../errors/taxonomy";
import { AGENT_DECIDE, isKnownTool } from "../tools/registry";

/**
 * Seed §3.3's `_validate_steps`, applied by the pipeline before anything is stored (whatever the layer already
 * checked): steps non-empty, each with stepId / order / tool / toolInput, tool known or `agent_decide`.
 * The message names the problem so the retry can carry it into the prompt.
 */
export function validateSteps(raw: unknown): ProcessStep[] {
  const parsed = z.array(ProcessStepSchema).safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new MalformedOutputError(`steps do not match the schema: ${issues.join("; ")}`, { cause: parsed.error, details: { issues } });
  }
  const steps = parsed.data;
  if (steps.length === 0) throw new MalformedOutputError("steps array is empty");
  for (const step of steps) {
    if (step.tool !== AGENT_DECIDE && !isKnownTool(step.tool)) {
      throw new MalformedOutputError(`Unknown tool: ${step.tool}`, { details: { stepId: step.stepId, tool: step.tool } });
    }
  }
  return steps;
}
