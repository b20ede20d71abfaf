import { defineStep } from "../../lib/steps/step-handler";
import { baseWiring } from "../../wiring/base-deps";
import { startRunStep, StartRunInputSchema } from "../../lib/steps/approval-steps";

export const step = defineStep({ service: "start-run", needs: { executionRun: true }, wire: (env) => baseWiring("start-run", env, { executionRun: true }).deps, schema: StartRunInputSchema, run: startRunStep });
export const handler = step.handler;
