import { defineStep } from "../../lib/pipeline/step-handler";
import { baseWiring } from "../../lib/pipeline/wiring/base-deps";
import { recordPipelineFailureStep, PipelineFailureInputSchema } from "../../lib/pipeline/steps/failure-step";

export const step = defineStep({ service: "record-pipeline-failure", needs: {}, wire: (env) => baseWiring("record-pipeline-failure", env).deps, schema: PipelineFailureInputSchema, run: recordPipelineFailureStep });
export const handler = step.handler;
