import { defineStep } from "../../lib/pipeline/step-handler";
import { baseWiring } from "../../lib/pipeline/wiring/base-deps";
import { withFreeeReads } from "../../lib/pipeline/wiring/freee-reads";
import { previewProcessStep, PreviewProcessInputSchema } from "../../lib/pipeline/steps/preview-step";

export const step = defineStep({ service: "preview-process", needs: { freee: true }, wire: async (env) => (await withFreeeReads(baseWiring("preview-process", env))).deps, schema: PreviewProcessInputSchema, run: previewProcessStep });
export const handler = step.handler;
