import { defineStep } from "../../lib/steps/step-handler";
import { baseWiring } from "../../wiring/base-deps";
import { createTaskStep, CreateTaskInputSchema } from "../../lib/steps/task-steps";

export const step = defineStep({ service: "create-task", needs: {}, wire: (env) => baseWiring("create-task", env).deps, schema: CreateTaskInputSchema, run: createTaskStep });
export const handler = step.handler;
