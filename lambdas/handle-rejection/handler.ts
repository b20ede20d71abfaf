import { defineStep } from "../../lib/steps/step-handler";
import { baseWiring } from "../../wiring/base-deps";
import { handleRejectionStep, HandleRejectionInputSchema } from "../../lib/steps/approval-steps";

export const step = defineStep({ service: "handle-rejection", needs: {}, wire: (env) => baseWiring("handle-rejection", env).deps, schema: HandleRejectionInputSchema, run: handleRejectionStep });
export const handler = step.handler;
