import { Duration } from "aws-cdk-lib";
import * as sfn from "aws-cdk-lib/aws-stepfunctions";
import * as tasks from "aws-cdk-lib/aws-stepfunctions-tasks";
import { Construct } from "constructs";
import { addRetries, RETRIES } from "./error-table";
import { invokeStep, type StepFunctions } from "./functions";

const J = sfn.JsonPath;

export interface TaskPipelineDefinitionProps {
  functions: StepFunctions;
  approvalTimeout: Duration;
}

/**
 * TaskPipeline (docs/architecture.md, shape on AWS): CreateTask → L1 (a message that asks for no work ends answered) → L2 → prompt approval → L3 → preview → process approval (skipped for a read-only plan the approval policy lets run on the prompt approval) → StartRun.
 * Rejection loops back to regeneration (the limit is checked by HandleRejection); an approval that times out
 * closes the task; every other failure goes to RecordPipelineFailure with the layer that failed.
 * State names are part of the contract with the local runner and the tests.
 */
export function buildTaskPipelineDefinition(scope: Construct, props: TaskPipelineDefinitionProps): sfn.IChainable {
  const fns = props.functions;
  const invoke = (id: string, fn: keyof StepFunctions, payload: Record<string, unknown>, resultPath: string) =>
    invokeStep(scope, fns, id, fn, payload, resultPath);
  const taskId = J.stringAt("$.task.taskId");
  const thread = J.objectAt("$.thread");

  // ------------------------------------------------------------ the failure path (one per machine)
  // No payload: the Lambda gets the whole state, which the *Failed Pass states have shaped into the failure record.
  const recordFailure = new tasks.LambdaInvoke(scope, "RecordPipelineFailure", {
    lambdaFunction: fns["record-pipeline-failure"],
    payloadResponseOnly: true,
    retryOnServiceExceptions: false,
    resultPath: "$.failure",
  });
  addRetries(recordFailure, RETRIES.failurePath);
  const taskFailed = new sfn.Fail(scope, "TaskFailed", { errorPath: "$.failure.errorName", causePath: "$.failure.layer" });
  recordFailure.next(taskFailed);
  const failed = (id: string, fields: Record<string, unknown>) => new sfn.Pass(scope, id, { parameters: { thread, ...fields } }).next(recordFailure);

  const createTaskFailed = failed("CreateTaskFailed", { layer: "L1", error: J.objectAt("$.error") });
  const l1Failed = failed("L1Failed", { layer: "L1", taskId, error: J.objectAt("$.error") });
  const l2Failed = failed("L2Failed", { layer: "L2", taskId, kind: "prompt", version: J.numberAt("$.prompt.version"), error: J.objectAt("$.error") });
  const l3Failed = failed("L3Failed", { layer: "L3", taskId, kind: "process", version: J.numberAt("$.process.version"), error: J.objectAt("$.error") });
  const l3MalformedTwice = failed("L3MalformedAfterRetry", {
    layer: "L3",
    taskId,
    kind: "process",
    version: J.numberAt("$.process.version"),
    error: J.objectAt("$.process.malformed"),
  });
  const previewFailed = failed("PreviewFailed", { layer: "L3", taskId, kind: "process", version: J.numberAt("$.process.version"), error: J.objectAt("$.error") });
  const startRunFailed = failed("StartRunFailed", { layer: "L4", taskId, error: J.objectAt("$.error") });
  const catchAll = (state: tasks.LambdaInvoke, handler: sfn.IChainable) => state.addCatch(handler, { errors: [sfn.Errors.ALL], resultPath: "$.error" });

  const taskClosed = new sfn.Succeed(scope, "TaskClosed");

  // ------------------------------------------------------------ L1
  const createTask = invoke(
    "CreateTask",
    "create-task",
    // The whole input as `request` too: a field a newer ingress adds (the message's files) reaches the step
    // without a JSONPath that would fail (States.Runtime, uncatchable) on an input that lacks it.
    { thread, requesterId: J.stringAt("$.requesterId"), requestText: J.stringAt("$.requestText"), request: J.objectAt("$"), executionName: J.stringAt("$$.Execution.Name") },
    "$.task",
  );
  addRetries(createTask, RETRIES.bookkeeping);
  catchAll(createTask, createTaskFailed);

  const analyzeTask = invoke("AnalyzeTask", "analyze-task", { taskId }, "$.analysis");
  addRetries(analyzeTask, RETRIES.layer);
  catchAll(analyzeTask, l1Failed);

  // ------------------------------------------------------------ approvals (shared shape)
  const withFailurePathRetries = (state: tasks.LambdaInvoke) => {
    addRetries(state, RETRIES.failurePath);
    return state;
  };
  const approvalWait = (id: string, kind: "prompt" | "process", onFailure: sfn.IChainable) => {
    const wait = new tasks.LambdaInvoke(scope, id, {
      lambdaFunction: fns["await-approval"],
      integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      payload: sfn.TaskInput.fromObject({ taskToken: J.taskToken, taskId, kind, version: J.numberAt(`$.${kind}.version`) }),
      retryOnServiceExceptions: false,
      resultPath: "$.approval",
      taskTimeout: sfn.Timeout.duration(props.approvalTimeout),
    });
    addRetries(wait, RETRIES.bookkeeping);
    const expire = new sfn.Pass(scope, `${id}Expired`, { parameters: { taskId, kind, version: J.numberAt(`$.${kind}.version`) } })
      .next(withFailurePathRetries(invoke(`Expire${kind === "prompt" ? "Prompt" : "Process"}Approval`, "expire-approval", { taskId: J.stringAt("$.taskId"), kind: J.stringAt("$.kind"), version: J.numberAt("$.version") }, "$.expired")))
      .next(taskClosed);
    wait.addCatch(expire, { errors: [sfn.Errors.TIMEOUT], resultPath: "$.error" });
    wait.addCatch(onFailure, { errors: [sfn.Errors.ALL], resultPath: "$.error" });
    return wait;
  };
  const rejection = (id: string, kind: "prompt" | "process", onFailure: sfn.IChainable) => {
    const handle = invoke(id, "handle-rejection", { taskId, teamId: J.stringAt("$.thread.teamId"), kind, version: J.numberAt(`$.${kind}.version`), approval: J.objectAt("$.approval") }, "$.rejection");
    addRetries(handle, RETRIES.bookkeeping);
    catchAll(handle, onFailure);
    return handle;
  };

  // ------------------------------------------------------------ L2
  const startPrompt = new sfn.Pass(scope, "FirstPrompt", { result: sfn.Result.fromObject({ version: 1 }), resultPath: "$.prompt" });
  const generatePrompt = invoke("GeneratePrompt", "generate-prompt", { taskId, prompt: J.objectAt("$.prompt") }, "$.generated");
  addRetries(generatePrompt, RETRIES.layer);
  catchAll(generatePrompt, l2Failed);
  const awaitPrompt = approvalWait("AwaitPromptApproval", "prompt", l2Failed);
  const promptRejected = rejection("PromptRejected", "prompt", l2Failed);
  const nextPrompt = new sfn.Pass(scope, "NextPrompt", {
    parameters: { version: J.numberAt("$.rejection.nextVersion"), regeneratedFor: J.stringAt("$.rejection.reason") },
    resultPath: "$.prompt",
  }).next(generatePrompt);

  // ------------------------------------------------------------ L3
  const firstProcess = new sfn.Pass(scope, "FirstProcess", {
    parameters: { version: 1, basedOnPromptVersion: J.numberAt("$.prompt.version") },
    resultPath: "$.process",
  });
  const generateProcess = invoke("GenerateProcess", "generate-process", { taskId, process: J.objectAt("$.process"), thread }, "$.generated");
  addRetries(generateProcess, RETRIES.layerL3);
  // A malformed L3 reply is retried once WITH the validation error in the prompt. The Catch keeps the
  // error on $.process.malformed (GenerateProcess reads it); the marker makes the second one final.
  const retryWithError = new sfn.Pass(scope, "RetryProcessWithError", {
    result: sfn.Result.fromObject({ attempt: 2 }),
    resultPath: "$.process.retriedAfterMalformed",
  }).next(generateProcess);
  const malformedOnce = new sfn.Choice(scope, "ProcessMalformedBefore?")
    .when(sfn.Condition.isPresent("$.process.retriedAfterMalformed"), l3MalformedTwice)
    .otherwise(retryWithError);
  generateProcess.addCatch(malformedOnce, { errors: ["MalformedOutputError"], resultPath: "$.process.malformed" });
  catchAll(generateProcess, l3Failed);
  // What each write will change, read from freee before the card asks for approval (every L3 version passes here).
  // `$.approval` is the 実行方針's approval for a first plan (a Process rejection for a regenerated one): a plan
  // that only reads may run on it where the approval policy allows (lib/steps/read-only-approval.ts).
  const previewProcess = invoke("PreviewProcess", "preview-process", { taskId, version: J.numberAt("$.process.version"), thread, attachments: J.listAt("$.task.attachments"), promptApproval: J.objectAt("$.approval") }, "$.preview");
  addRetries(previewProcess, RETRIES.preview);
  catchAll(previewProcess, previewFailed);
  const awaitProcess = approvalWait("AwaitProcessApproval", "process", l3Failed);
  const processRejected = rejection("ProcessRejected", "process", l3Failed);
  const nextProcess = new sfn.Pass(scope, "NextProcess", {
    parameters: {
      version: J.numberAt("$.rejection.nextVersion"),
      regeneratedFor: J.stringAt("$.rejection.reason"),
      basedOnPromptVersion: J.numberAt("$.process.basedOnPromptVersion"),
    },
    resultPath: "$.process",
  }).next(generateProcess);

  // ------------------------------------------------------------ L4 hand-off
  const startRun = invoke("StartRun", "start-run", { taskId, version: J.numberAt("$.process.version"), approval: J.objectAt("$.approval"), thread }, "$.run");
  addRetries(startRun, RETRIES.bookkeeping);
  catchAll(startRun, startRunFailed);
  const done = new sfn.Succeed(scope, "PipelineDone");
  const run = startRun.next(done);
  // The preview decided a read-only plan with its 実行方針 approval: no wait, the Process card is information.
  const readOnlyApproved = new sfn.Pass(scope, "ReadOnlyApproved", { inputPath: "$.preview.approval", resultPath: "$.approval" }).next(run);

  const approved = (path: string) => sfn.Condition.stringEquals(path, "approved");
  const regenerate = sfn.Condition.stringEquals("$.rejection.action", "regenerate");

  // L1 read no request for work on freee: the task is answered (reply in the thread), nothing more runs.
  const answered = new sfn.Succeed(scope, "TaskAnswered");
  const isRequest = new sfn.Choice(scope, "IsRequest?").when(sfn.Condition.booleanEquals("$.analysis.isRequest", false), answered).otherwise(startPrompt);

  const pipeline = createTask.next(analyzeTask).next(isRequest);
  startPrompt
    .next(generatePrompt)
    .next(awaitPrompt)
    .next(
      new sfn.Choice(scope, "PromptDecision")
        .when(approved("$.approval.decision"), firstProcess.next(generateProcess).next(previewProcess).next(
          new sfn.Choice(scope, "ProcessApprovedByPolicy?").when(sfn.Condition.isPresent("$.preview.approval"), readOnlyApproved).otherwise(awaitProcess.next(
            new sfn.Choice(scope, "ProcessDecision")
              .when(approved("$.approval.decision"), run)
              .otherwise(processRejected.next(new sfn.Choice(scope, "RegenerateProcess?").when(regenerate, nextProcess).otherwise(taskClosed))),
          )),
        ))
        .otherwise(promptRejected.next(new sfn.Choice(scope, "RegeneratePrompt?").when(regenerate, nextPrompt).otherwise(taskClosed))),
    );
  return pipeline;
}
