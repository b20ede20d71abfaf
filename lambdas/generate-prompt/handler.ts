import { defineStep } from "../../lib/steps/step-handler";
import { baseWiring } from "../../wiring/base-deps";
import { withLayers } from "../../wiring/layers";
import { generatePromptStep, GeneratePromptInputSchema } from "../../lib/steps/generate-steps";

export const step = defineStep({ service: "generate-prompt", needs: { layers: true }, wire: (env) => withLayers(baseWiring("generate-prompt", env)).deps, schema: GeneratePromptInputSchema, run: generatePromptStep });
export const handler = step.handler;
