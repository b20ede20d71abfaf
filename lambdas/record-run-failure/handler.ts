import { defineStep } from "../../lib/pipeline/step-handler";
import { baseWiring } from "../../lib/pipeline/wiring/base-deps";
import { withAgent } from "../../lib/pipeline/wiring/agent";
import { recordRunFailureStep, RunFailureInputSchema } from "../../lib/pipeline/steps/run-failure-step";

export const step = defineStep({ service: "record-run-failure", needs: { agent: true }, wire: async (env) => (await withAgent(baseWiring("record-run-failure", env))).deps, schema: RunFailureInputSchema, run: recordRunFailureStep });
export const handler = step.handler;
