import { defineStep } from "../../lib/steps/step-handler";
import { baseWiring } from "../../wiring/base-deps";
import { withExecutionRun } from "../../wiring/execution-run";
import { startRunStep, StartRunInputSchema } from "../../lib/steps/approval-steps";

export const step = defineStep({ service: "start-run", needs: { executionRun: true }, wire: (env) => withExecutionRun(baseWiring("start-run", env)).deps, schema: StartRunInputSchema, run: startRunStep });
export const handler = step.handler;
