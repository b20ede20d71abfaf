import type { LocalStepFunctions } from "./local-step-functions";

/**
 * Step Functions' HTTP API (AWS JSON 1.0: `X-Amz-Target: AWSStepFunctions.<Operation>`) over the local runner,
 * so the ingress's real SFNClient (`SFN_ENDPOINT`) talks to it exactly as it talks to AWS. Errors carry the
 * service's names in `__type` (ExecutionAlreadyExists, TaskDoesNotExist, ...), which the SDK turns into `err.name`.
 */
export const SFN_TARGET_PREFIX = "AWSStepFunctions.";

export function isSfnRequest(request: Request): boolean {
  return request.method === "POST" && (request.headers.get("x-amz-target") ?? "").startsWith(SFN_TARGET_PREFIX);
}

export async function handleSfnRequest(local: LocalStepFunctions, request: Request): Promise<Response> {
  const operation = (request.headers.get("x-amz-target") ?? "").slice(SFN_TARGET_PREFIX.length);
  let input: Record<string, unknown>;
  try {
    input = JSON.parse(await request.text()) as Record<string, unknown>;
  } catch (err) {
    return awsError("SerializationException", err instanceof Error ? err.message : "body is not JSON");
  }
  const str = (key: string) => (typeof input[key] === "string" ? (input[key] as string) : undefined);
  try {
    switch (operation) {
      case "StartExecution": {
        const arn = str("stateMachineArn");
        const name = str("name");
        if (arn === undefined || name === undefined) return awsError("InvalidName", "stateMachineArn and name are required");
        const execution = local.startExecution(arn, name, JSON.parse(str("input") ?? "{}"));
        return ok({ executionArn: execution.executionArn, startDate: Date.now() / 1000 });
      }
      case "SendTaskSuccess": {
        const token = str("taskToken");
        const output = str("output");
        if (token === undefined || output === undefined) return awsError("InvalidToken", "taskToken and output are required");
        local.sendTaskSuccess(token, JSON.parse(output));
        return ok({});
      }
      case "SendTaskFailure": {
        const token = str("taskToken");
        if (token === undefined) return awsError("InvalidToken", "taskToken is required");
        // error and cause are optional in the API; Step Functions reports a missing error as States.TaskFailed.
        local.sendTaskFailure(token, str("error") ?? "States.TaskFailed", str("cause"));
        return ok({});
      }
      case "SendTaskHeartbeat":
        if (!local.pendingTokens().some((p) => p.token === str("taskToken"))) return awsError("TaskDoesNotExist", "task token is not waiting");
        return ok({});
      case "DescribeExecution": {
        const arn = str("executionArn");
        const execution = [...local.executions.values()].find((e) => e.executionArn === arn);
        if (execution === undefined) return awsError("ExecutionDoesNotExist", `no execution ${arn ?? ""}`);
        return ok({
          executionArn: execution.executionArn,
          stateMachineArn: execution.stateMachineArn,
          name: execution.name,
          status: execution.status,
          input: JSON.stringify(execution.input),
          ...(execution.output === undefined ? {} : { output: JSON.stringify(execution.output) }),
          ...(execution.error === undefined ? {} : { error: execution.error, cause: String(execution.cause ?? "") }),
          startDate: Date.now() / 1000,
        });
      }
      default:
        return awsError("UnknownOperationException", `${operation} is not supported by the local Step Functions`);
    }
  } catch (err) {
    // The runner throws errors named as the service names them (StateMachineDoesNotExist, TaskDoesNotExist, ...).
    const name = err instanceof Error ? err.name : "ServiceException";
    return awsError(name === "Error" ? "InvalidArn" : name, err instanceof Error ? err.message : String(err));
  }
}

function ok(body: unknown): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/x-amz-json-1.0" } });
}

function awsError(type: string, message: string): Response {
  return new Response(JSON.stringify({ __type: type, message }), {
    status: 400,
    headers: { "content-type": "application/x-amz-json-1.0", "x-amzn-errortype": type },
  });
}
