import { defineStep } from "../../lib/steps/step-handler";
import { runL1Task } from "../../lib/model/l1-task";
import { baseWiring } from "../../wiring/base-deps";
import { withLayers } from "../../wiring/layers";
import { analyzeTaskStep, TaskRefSchema } from "../../lib/steps/task-steps";

export const step = defineStep({ service: "analyze-task", needs: { layers: true }, wire: (env) => withLayers(baseWiring("analyze-task", env), { L1: runL1Task }).deps, schema: TaskRefSchema, run: analyzeTaskStep });
export const handler = step.handler;
