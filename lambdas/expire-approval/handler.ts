import { defineStep } from "../../lib/pipeline/step-handler";
import { expireApprovalStep, VersionRefSchema } from "../../lib/pipeline/steps/approval-steps";

export const step = defineStep({ service: "expire-approval", needs: {}, schema: VersionRefSchema, run: expireApprovalStep });
export const handler = step.handler;
