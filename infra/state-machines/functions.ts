import type * as lambda from "aws-cdk-lib/aws-lambda";

/** Lambda folders under lambdas/ that the state machines invoke (also the local runner's handler keys). */
export const PIPELINE_FUNCTIONS = [
  "create-task",
  "analyze-task",
  "generate-prompt",
  "generate-process",
  "await-approval",
  "handle-rejection",
  "expire-approval",
  "start-run",
  "record-pipeline-failure",
] as const;
export const RUN_FUNCTIONS = ["start-session", "poll-session", "record-run-failure"] as const;
export type PipelineFunctionName = (typeof PIPELINE_FUNCTIONS)[number];
export type RunFunctionName = (typeof RUN_FUNCTIONS)[number];
export type StepFunctionName = PipelineFunctionName | RunFunctionName;

export type StepFunctions = Record<StepFunctionName, lambda.IFunction>;
