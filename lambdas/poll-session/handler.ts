import { defineStep } from "../../lib/steps/step-handler";
import { baseWiring } from "../../wiring/base-deps";
import { withAgent } from "../../wiring/agent";
import { pollSessionStep, PollSessionInputSchema } from "../../lib/steps/run-steps";

export const step = defineStep({ service: "poll-session", needs: { agent: true }, wire: async (env) => (await withAgent(baseWiring("poll-session", env))).deps, schema: PollSessionInputSchema, run: pollSessionStep });
export const handler = step.handler;
