import { defineStep } from "../../lib/pipeline/step-handler";
import { handleRejectionStep, HandleRejectionInputSchema } from "../../lib/pipeline/steps/approval-steps";

export const step = defineStep({ service: "handle-rejection", needs: {}, schema: HandleRejectionInputSchema, run: handleRejectionStep });
export const handler = step.handler;
