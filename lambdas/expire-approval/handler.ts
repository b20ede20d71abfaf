import { defineStep } from "../../lib/steps/step-handler";
import { baseWiring } from "../../wiring/base-deps";
import { expireApprovalStep, VersionRefSchema } from "../../lib/steps/approval-steps";

export const step = defineStep({ service: "expire-approval", needs: {}, wire: (env) => baseWiring("expire-approval", env).deps, schema: VersionRefSchema, run: expireApprovalStep });
export const handler = step.handler;
