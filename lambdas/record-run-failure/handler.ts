import { defineStep } from "../../lib/steps/step-handler";
import { baseWiring } from "../../wiring/base-deps";
import { withAgent } from "../../wiring/agent";
import { recordRunFailureStep, RunFailureInputSchema } from "../../lib/steps/run-failure-step";

export const step = defineStep({ service: "record-run-failure", needs: { agent: true }, wire: async (env) => (await withAgent(baseWiring("record-run-failure", env))).deps, schema: RunFailureInputSchema, run: recordRunFailureStep });
export const handler = step.handler;
