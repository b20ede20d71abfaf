import { defineStep } from "../../lib/pipeline/step-handler";
import { baseWiring } from "../../lib/pipeline/wiring/base-deps";
import { expireApprovalStep, VersionRefSchema } from "../../lib/pipeline/steps/approval-steps";

export const step = defineStep({ service: "expire-approval", needs: {}, wire: (env) => baseWiring("expire-approval", env).deps, schema: VersionRefSchema, run: expireApprovalStep });
export const handler = step.handler;
