import { defineStep } from "../../lib/pipeline/step-handler";
import { recordPipelineFailureStep, PipelineFailureInputSchema } from "../../lib/pipeline/steps/failure-step";

export const step = defineStep({ service: "record-pipeline-failure", needs: {}, schema: PipelineFailureInputSchema, run: recordPipelineFailureStep });
export const handler = step.handler;
