import {
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  type SFNClient,
} from "@aws-sdk/client-sfn";
import type { LocalStepFunctions } from "./local-step-functions";

/**
 * An in-process stand-in for SFNClient.send over a LocalStepFunctions: StartExecution, SendTaskSuccess,
 * SendTaskFailure, SendTaskHeartbeat — the calls the app makes. Errors carry the service's error names
 * (ExecutionAlreadyExists, TaskDoesNotExist), which is what the callers match on.
 */
export function localSfnClient(local: LocalStepFunctions): Pick<SFNClient, "send"> {
  const send = async (command: unknown): Promise<unknown> => {
    if (command instanceof StartExecutionCommand) {
      const { stateMachineArn, name, input } = command.input;
      if (stateMachineArn === undefined || name === undefined) throw new Error("local-sfn: StartExecution needs stateMachineArn and name");
      const execution = local.startExecution(stateMachineArn, name, input === undefined ? {} : JSON.parse(input));
      return { executionArn: execution.executionArn, startDate: new Date() };
    }
    if (command instanceof SendTaskSuccessCommand) {
      const { taskToken, output } = command.input;
      if (taskToken === undefined || output === undefined) throw invalid("SendTaskSuccess needs taskToken and output");
      local.sendTaskSuccess(taskToken, JSON.parse(output));
      return {};
    }
    if (command instanceof SendTaskFailureCommand) {
      const { taskToken } = command.input;
      if (taskToken === undefined) throw invalid("SendTaskFailure needs taskToken");
      // Step Functions' own default when the caller names no error.
      local.sendTaskFailure(taskToken, command.input.error ?? "States.TaskFailed", command.input.cause);
      return {};
    }
    if (command instanceof SendTaskHeartbeatCommand) return {};
    throw new Error(`local-sfn: ${(command as { constructor: { name: string } }).constructor.name} is not supported`);
  };
  return { send } as Pick<SFNClient, "send">;
}

/** The service's error for a malformed request. */
function invalid(message: string): Error {
  const err = new Error(`local-sfn: ${message}`);
  err.name = "InvalidToken";
  return err;
}
