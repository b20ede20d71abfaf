import { defineStep } from "../../lib/pipeline/step-handler";
import { baseWiring } from "../../lib/pipeline/wiring/base-deps";
import { withLayers } from "../../lib/pipeline/wiring/layers";
import { generatePromptStep, GeneratePromptInputSchema } from "../../lib/pipeline/steps/generate-steps";

export const step = defineStep({ service: "generate-prompt", needs: { layers: true }, wire: (env) => withLayers(baseWiring("generate-prompt", env)).deps, schema: GeneratePromptInputSchema, run: generatePromptStep });
export const handler = step.handler;
