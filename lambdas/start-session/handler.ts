import { defineStep } from "../../lib/pipeline/step-handler";
import { baseWiring } from "../../lib/pipeline/wiring/base-deps";
import { withAgent } from "../../lib/pipeline/wiring/agent";
import { startSessionStep, ExecutionRunInputSchema } from "../../lib/pipeline/steps/run-steps";

export const step = defineStep({ service: "start-session", needs: { agent: true }, wire: async (env) => (await withAgent(baseWiring("start-session", env))).deps, schema: ExecutionRunInputSchema, run: startSessionStep });
export const handler = step.handler;
