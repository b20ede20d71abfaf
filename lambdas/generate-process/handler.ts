import { defineStep } from "../../lib/pipeline/step-handler";
import { generateProcessStep, GenerateProcessInputSchema } from "../../lib/pipeline/steps/generate-steps";

export const step = defineStep({ service: "generate-process", needs: { layers: true }, schema: GenerateProcessInputSchema, run: generateProcessStep });
export const handler = step.handler;
