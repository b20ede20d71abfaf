import { defineStep } from "../../lib/pipeline/step-handler";
import { pollSessionStep, PollSessionInputSchema } from "../../lib/pipeline/steps/run-steps";

export const step = defineStep({ service: "poll-session", needs: { agent: true }, schema: PollSessionInputSchema, run: pollSessionStep });
export const handler = step.handler;
