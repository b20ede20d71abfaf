import { defineStep } from "../../lib/pipeline/step-handler";
import { analyzeTaskStep, TaskRefSchema } from "../../lib/pipeline/steps/task-steps";

export const step = defineStep({ service: "analyze-task", needs: { layers: true }, schema: TaskRefSchema, run: analyzeTaskStep });
export const handler = step.handler;
