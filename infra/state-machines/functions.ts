import type * as lambda from "aws-cdk-lib/aws-lambda";
import * as sfn from "aws-cdk-lib/aws-stepfunctions";
import * as tasks from "aws-cdk-lib/aws-stepfunctions-tasks";
import type { Construct } from "constructs";

/** Lambda folders under lambdas/ that the state machines invoke (also the local runner's handler keys). */
export const PIPELINE_FUNCTIONS = [
  "create-task",
  "analyze-task",
  "generate-prompt",
  "generate-process",
  "preview-process",
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

/** `invokeStep`'s payload that is the state's whole input (with payloadResponseOnly, a JSONPath payload renders as no valid Parameters). */
export const STATE_INPUT = "state input";

/**
 * A Task state that invokes one step Lambda with a shaped payload. Service exceptions are NOT retried here:
 * the Retry blocks of error-table.ts are the only retry policy, so every retry shows in the history.
 */
export function invokeStep(
  scope: Construct,
  functions: StepFunctions,
  id: string,
  fn: StepFunctionName,
  payload: Record<string, unknown> | typeof STATE_INPUT,
  resultPath: string,
): tasks.LambdaInvoke {
  return new tasks.LambdaInvoke(scope, id, {
    lambdaFunction: functions[fn],
    // No Parameters: the Lambda gets the state's input as it is.
    ...(payload === STATE_INPUT ? {} : { payload: sfn.TaskInput.fromObject(payload) }),
    payloadResponseOnly: true,
    retryOnServiceExceptions: false,
    resultPath,
  });
}
