import { Duration } from "aws-cdk-lib";
import * as sfn from "aws-cdk-lib/aws-stepfunctions";
import * as tasks from "aws-cdk-lib/aws-stepfunctions-tasks";
import { Construct } from "constructs";
import { addRetries, RETRIES } from "./error-table";
import { invokeStep, STATE_INPUT, type StepFunctions } from "./functions";

const J = sfn.JsonPath;

export interface ExecutionRunDefinitionProps {
  functions: StepFunctions;
  pollInterval: Duration;
}

/**
 * ExecutionRun (one per Execution): StartSession → Wait → PollSession → Choice, looping while the run
 * is `running` (a rerun with nothing left to do ends right after StartSession). PollSession carries the elapsed seconds in the state and throws RunTimeoutError past the run
 * timeout; that and every other failure go to RecordRunFailure (timed_out / failed + [再実行]).
 */
export function buildExecutionRunDefinition(scope: Construct, props: ExecutionRunDefinitionProps): sfn.IChainable {
  const fns = props.functions;
  const ref = { taskId: J.stringAt("$.taskId"), executionNo: J.numberAt("$.executionNo") };
  const invoke = (id: string, fn: keyof StepFunctions, payload: Record<string, unknown> | typeof STATE_INPUT, resultPath: string) =>
    invokeStep(scope, fns, id, fn, payload, resultPath);

  const recordFailure = invoke("RecordRunFailure", "record-run-failure", { ...ref, error: J.objectAt("$.error") }, "$.failure");
  addRetries(recordFailure, RETRIES.failurePath);
  const ended = new sfn.Choice(scope, "FailureKind")
    .when(sfn.Condition.stringEquals("$.failure.status", "timed_out"), new sfn.Fail(scope, "RunTimedOut", { error: "RunTimeoutError", cause: "the run passed its time limit" }))
    .otherwise(new sfn.Fail(scope, "RunFailed", { errorPath: "$.failure.errorName", causePath: "$.failure.status" }));
  recordFailure.next(ended);

  // The run's whole input (this is the first state): `processVersion` is optional (a start by a Lambda deployed
  // before it existed sends none), and a JSONPath to a missing field would fail the state.
  const startSession = invoke("StartSession", "start-session", STATE_INPUT, "$.run");
  addRetries(startSession, RETRIES.sessionCreate);
  startSession.addCatch(recordFailure, { errors: [sfn.Errors.ALL], resultPath: "$.error" });

  const wait = new sfn.Wait(scope, "WaitForProgress", { time: sfn.WaitTime.duration(props.pollInterval) });
  const poll = invoke(
    "PollSession",
    "poll-session",
    // The thread StartSession (then each poll) returned: the poll reads the run, not the task.
    { ...ref, sessionId: J.stringAt("$.run.sessionId"), elapsedSeconds: J.numberAt("$.run.elapsedSeconds"), thread: J.objectAt("$.run.thread") },
    "$.run",
  );
  addRetries(poll, RETRIES.poll);
  poll.addCatch(recordFailure, { errors: [sfn.Errors.ALL], resultPath: "$.error" });

  const state = new sfn.Choice(scope, "RunState")
    .when(sfn.Condition.stringEquals("$.run.state", "running"), wait)
    .when(sfn.Condition.stringEquals("$.run.state", "completed"), new sfn.Succeed(scope, "RunCompleted"))
    .when(sfn.Condition.stringEquals("$.run.state", "cancelled"), new sfn.Succeed(scope, "RunCancelled"))
    .otherwise(new sfn.Fail(scope, "UnknownRunState", { error: "IllegalTransitionError", cause: "poll returned an unknown run state" }));

  // A rerun whose every step an earlier run completed ends at once (no session is created).
  const started = new sfn.Choice(scope, "SessionStarted")
    .when(sfn.Condition.stringEquals("$.run.state", "completed"), new sfn.Succeed(scope, "NothingLeftToRun"))
    .otherwise(wait);
  wait.next(poll).next(state);
  return startSession.next(started);
}
