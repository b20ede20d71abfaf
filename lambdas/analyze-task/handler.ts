import { defineStep } from "../../lib/steps/step-handler";
import { baseWiring } from "../../wiring/base-deps";
import { withLayers } from "../../wiring/layers";
import { analyzeTaskStep, TaskRefSchema } from "../../lib/steps/task-steps";

export const step = defineStep({ service: "analyze-task", needs: { layers: true }, wire: (env) => withLayers(baseWiring("analyze-task", env)).deps, schema: TaskRefSchema, run: analyzeTaskStep });
export const handler = step.handler;
