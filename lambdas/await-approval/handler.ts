import { defineStep } from "../../lib/pipeline/step-handler";
import { awaitApprovalStep, AwaitApprovalInputSchema } from "../../lib/pipeline/steps/approval-steps";

export const step = defineStep({ service: "await-approval", needs: {}, schema: AwaitApprovalInputSchema, run: awaitApprovalStep });
export const handler = step.handler;
