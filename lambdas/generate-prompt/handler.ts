import { defineStep } from "../../lib/steps/step-handler";
import { runL2Prompt } from "../../lib/model/l2-prompt";
import { baseWiring } from "../../wiring/base-deps";
import { withLayers } from "../../wiring/layers";
import { generatePromptStep, GeneratePromptInputSchema } from "../../lib/steps/generate-prompt-step";

export const step = defineStep({ service: "generate-prompt", needs: { layers: true }, wire: (env) => withLayers(baseWiring("generate-prompt", env), { L2: runL2Prompt }).deps, schema: GeneratePromptInputSchema, run: generatePromptStep });
export const handler = step.handler;
