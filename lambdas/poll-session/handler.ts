import { defineStep } from "../../lib/pipeline/step-handler";
import { baseWiring } from "../../lib/pipeline/wiring/base-deps";
import { withAgent } from "../../lib/pipeline/wiring/agent";
import { pollSessionStep, PollSessionInputSchema } from "../../lib/pipeline/steps/run-steps";

export const step = defineStep({ service: "poll-session", needs: { agent: true }, wire: async (env) => (await withAgent(baseWiring("poll-session", env))).deps, schema: PollSessionInputSchema, run: pollSessionStep });
export const handler = step.handler;
