import { defineStep } from "../../lib/pipeline/step-handler";
import { createTaskStep, CreateTaskInputSchema } from "../../lib/pipeline/steps/task-steps";

export const step = defineStep({ service: "create-task", needs: {}, schema: CreateTaskInputSchema, run: createTaskStep });
export const handler = step.handler;
