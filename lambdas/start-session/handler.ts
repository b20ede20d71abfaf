import { defineStep } from "../../lib/steps/step-handler";
import { baseWiring } from "../../wiring/base-deps";
import { withAgent } from "../../wiring/agent";
import { startSessionStep, ExecutionRunInputSchema } from "../../lib/steps/run-steps";

export const step = defineStep({ service: "start-session", needs: { agent: true }, wire: async (env) => (await withAgent(baseWiring("start-session", env))).deps, schema: ExecutionRunInputSchema, run: startSessionStep });
export const handler = step.handler;
