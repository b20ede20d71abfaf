import type { ProcessStep } from "../core/domain/records";
import { MalformedOutputError } from "../core/errors/taxonomy";
import { checkSteps, type StepContext } from "../model/process-steps";

/**
 * L3's step checks, applied again by the pipeline right before the steps are stored, whatever
 * produced them (the L3 layer checks the model's reply with the same `checkSteps`; this guards the port).
 * Here the request is known, so a file-box upload must name one of the files the request message shared.
 * The message names every problem so the retry can carry it into the prompt.
 */
export function validateSteps(raw: unknown, context: StepContext = {}): ProcessStep[] {
  const result = checkSteps({ steps: raw }, context);
  if ("issues" in result) {
    const issues = result.issues.slice(0, 10).map((i) => i.message);
    throw new MalformedOutputError(issues.join("; "), { details: { issues } });
  }
  return result.steps;
}
