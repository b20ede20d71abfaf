import { StartExecutionCommand, type SFNClient } from "@aws-sdk/client-sfn";
import { taskIdFor } from "../../core/domain/records";
import { classifyAwsError } from "../../core/errors/classify";
import type { TaskPipelineInput } from "./contracts";

export interface StartTaskPipelineDeps {
  sfn: Pick<SFNClient, "send">;
  taskPipelineArn: string;
}

/**
 * Start the TaskPipeline for a request, the execution named after the task id. The name derives from (team,
 * channel, ts): a redelivery, or a message + app_mention pair, is the same task, and `started: false` says so.
 */
export async function startTaskPipeline(deps: StartTaskPipelineDeps, input: TaskPipelineInput): Promise<{ taskId: string; started: boolean }> {
  const taskId = taskIdFor(input.thread);
  try {
    await deps.sfn.send(new StartExecutionCommand({ stateMachineArn: deps.taskPipelineArn, name: taskId, input: JSON.stringify(input) }));
    return { taskId, started: true };
  } catch (err) {
    if (err instanceof Error && err.name === "ExecutionAlreadyExists") return { taskId, started: false };
    throw classifyAwsError(err, "StartExecution(TaskPipeline)") ?? err;
  }
}
