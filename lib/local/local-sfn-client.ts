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
      local.sendTaskSuccess(command.input.taskToken ?? "", JSON.parse(command.input.output ?? "null"));
      return {};
    }
    if (command instanceof SendTaskFailureCommand) {
      local.sendTaskFailure(command.input.taskToken ?? "", command.input.error ?? "States.TaskFailed", command.input.cause);
      return {};
    }
    if (command instanceof SendTaskHeartbeatCommand) return {};
    throw new Error(`local-sfn: ${(command as { constructor: { name: string } }).constructor.name} is not supported`);
  };
  return { send } as Pick<SFNClient, "send">;
}
