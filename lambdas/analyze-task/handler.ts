import { defineStep } from "../../lib/pipeline/step-handler";
import { baseWiring } from "../../lib/pipeline/wiring/base-deps";
import { withLayers } from "../../lib/pipeline/wiring/layers";
import { analyzeTaskStep, TaskRefSchema } from "../../lib/pipeline/steps/task-steps";

export const step = defineStep({ service: "analyze-task", needs: { layers: true }, wire: (env) => withLayers(baseWiring("analyze-task", env)).deps, schema: TaskRefSchema, run: analyzeTaskStep });
export const handler = step.handler;
