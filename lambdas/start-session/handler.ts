import { defineStep } from "../../lib/pipeline/step-handler";
import { startSessionStep, ExecutionRunInputSchema } from "../../lib/pipeline/steps/run-steps";

export const step = defineStep({ service: "start-session", needs: { agent: true }, schema: ExecutionRunInputSchema, run: startSessionStep });
export const handler = step.handler;
