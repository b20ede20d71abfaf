import { defineStep } from "../../lib/steps/step-handler";
import { baseWiring } from "../../wiring/base-deps";
import { withFreeeReads } from "../../wiring/freee-reads";
import { previewProcessStep, PreviewProcessInputSchema } from "../../lib/steps/preview-step";

export const step = defineStep({ service: "preview-process", needs: { freee: true }, wire: async (env) => (await withFreeeReads(baseWiring("preview-process", env))).deps, schema: PreviewProcessInputSchema, run: previewProcessStep });
export const handler = step.handler;
