import { defineStep } from "../../lib/pipeline/step-handler";
import { previewProcessStep, PreviewProcessInputSchema } from "../../lib/pipeline/steps/preview-step";

export const step = defineStep({ service: "preview-process", needs: { freee: true }, schema: PreviewProcessInputSchema, run: previewProcessStep });
export const handler = step.handler;
