import { defineStep } from "../../lib/pipeline/step-handler";
import { recordRunFailureStep, RunFailureInputSchema } from "../../lib/pipeline/steps/run-failure-step";

export const step = defineStep({ service: "record-run-failure", needs: { agent: true }, schema: RunFailureInputSchema, run: recordRunFailureStep });
export const handler = step.handler;
