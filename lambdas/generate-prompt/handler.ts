import { defineStep } from "../../lib/pipeline/step-handler";
import { generatePromptStep, GeneratePromptInputSchema } from "../../lib/pipeline/steps/generate-steps";

export const step = defineStep({ service: "generate-prompt", needs: { layers: true }, schema: GeneratePromptInputSchema, run: generatePromptStep });
export const handler = step.handler;
