import { defineStep } from "../../lib/pipeline/step-handler";
import { startRunStep, StartRunInputSchema } from "../../lib/pipeline/steps/approval-steps";

export const step = defineStep({ service: "start-run", needs: { executionRun: true }, schema: StartRunInputSchema, run: startRunStep });
export const handler = step.handler;
