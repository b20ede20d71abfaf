import { defineStep } from "../../lib/steps/step-handler";
import { baseWiring } from "../../wiring/base-deps";
import { recordPipelineFailureStep, PipelineFailureInputSchema } from "../../lib/steps/failure-step";

export const step = defineStep({ service: "record-pipeline-failure", needs: {}, wire: (env) => baseWiring("record-pipeline-failure", env).deps, schema: PipelineFailureInputSchema, run: recordPipelineFailureStep });
export const handler = step.handler;
