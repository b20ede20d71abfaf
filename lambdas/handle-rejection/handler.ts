import { defineStep } from "../../lib/pipeline/step-handler";
import { baseWiring } from "../../lib/pipeline/wiring/base-deps";
import { handleRejectionStep, HandleRejectionInputSchema } from "../../lib/pipeline/steps/approval-steps";

export const step = defineStep({ service: "handle-rejection", needs: {}, wire: (env) => baseWiring("handle-rejection", env).deps, schema: HandleRejectionInputSchema, run: handleRejectionStep });
export const handler = step.handler;
