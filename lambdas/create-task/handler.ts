import { defineStep } from "../../lib/pipeline/step-handler";
import { baseWiring } from "../../lib/pipeline/wiring/base-deps";
import { createTaskStep, CreateTaskInputSchema } from "../../lib/pipeline/steps/task-steps";

export const step = defineStep({ service: "create-task", needs: {}, wire: (env) => baseWiring("create-task", env).deps, schema: CreateTaskInputSchema, run: createTaskStep });
export const handler = step.handler;
