import { defineStep } from "../../lib/steps/step-handler";
import { baseWiring } from "../../wiring/base-deps";
import { awaitApprovalStep, AwaitApprovalInputSchema } from "../../lib/steps/approval-steps";

export const step = defineStep({ service: "await-approval", needs: {}, wire: (env) => baseWiring("await-approval", env).deps, schema: AwaitApprovalInputSchema, run: awaitApprovalStep });
export const handler = step.handler;
