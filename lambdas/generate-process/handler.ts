import { defineStep } from "../../lib/steps/step-handler";
import { runL3Process } from "../../lib/model/l3-process";
import { baseWiring } from "../../wiring/base-deps";
import { withLayers } from "../../wiring/layers";
import { generateProcessStep, GenerateProcessInputSchema } from "../../lib/steps/generate-process-step";

export const step = defineStep({ service: "generate-process", needs: { layers: true }, wire: (env) => withLayers(baseWiring("generate-process", env), { L3: runL3Process }).deps, schema: GenerateProcessInputSchema, run: generateProcessStep });
export const handler = step.handler;
