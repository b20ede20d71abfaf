import { defineStep } from "../../lib/pipeline/step-handler";
import { baseWiring } from "../../lib/pipeline/wiring/base-deps";
import { awaitApprovalStep, AwaitApprovalInputSchema } from "../../lib/pipeline/steps/approval-steps";

export const step = defineStep({ service: "await-approval", needs: {}, wire: (env) => baseWiring("await-approval", env).deps, schema: AwaitApprovalInputSchema, run: awaitApprovalStep });
export const handler = step.handler;
