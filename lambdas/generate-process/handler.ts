import { defineStep } from "../../lib/pipeline/step-handler";
import { baseWiring } from "../../lib/pipeline/wiring/base-deps";
import { withLayers } from "../../lib/pipeline/wiring/layers";
import { generateProcessStep, GenerateProcessInputSchema } from "../../lib/pipeline/steps/generate-steps";

export const step = defineStep({ service: "generate-process", needs: { layers: true }, wire: (env) => withLayers(baseWiring("generate-process", env)).deps, schema: GenerateProcessInputSchema, run: generateProcessStep });
export const handler = step.handler;
