import { SendTaskSuccessCommand, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localSfnClient } from "../../../dev/local/local-sfn-client";
import { causeMessage, errorFromCatch } from "../../../lib/steps/common";
import { startPipelineHarness, type PipelineHarness } from "../../support/local-sfn";
import { l1Ok, l2Ok } from "../../steps/fixtures";

let h: PipelineHarness;
beforeAll(async () => {
  h = await startPipelineHarness();
});
afterAll(async () => h.close());

describe("local StartExecution / SendTask* (what the ingress and start-run call)", () => {
  it("a redelivered message (same name, same input) starts nothing new; another input under the name is refused", async () => {
    h.anthropic.enqueue(l1Ok(), l2Ok());
    const sfn = localSfnClient(h.local);
    const thread = { teamId: "T0001", channelId: "C0009", messageTs: "1700009999.000100" };
    const input = JSON.stringify({ thread, requesterId: "UREQ", requestText: "経費を精算して" });
    const name = "T0001-C0009-1700009999_000100";
    const first = (await sfn.send(new StartExecutionCommand({ stateMachineArn: h.local.taskPipelineArn, name, input }))) as { executionArn: string };
    const again = (await sfn.send(new StartExecutionCommand({ stateMachineArn: h.local.taskPipelineArn, name, input }))) as { executionArn: string };
    expect(again.executionArn).toBe(first.executionArn);
    expect([...h.local.executions.keys()].filter((k) => k.endsWith(name))).toHaveLength(1);
    await expect(
      sfn.send(new StartExecutionCommand({ stateMachineArn: h.local.taskPipelineArn, name, input: JSON.stringify({ thread, requesterId: "UREQ", requestText: "別の依頼" }) })),
    ).rejects.toMatchObject({ name: "ExecutionAlreadyExists" });
    const token = await h.local.waitForToken(name, "AwaitPromptApproval");
    h.local.timeOutTask(token.token);
    await h.local.execution("TaskPipeline", name)?.done;
  });

  it("a used or unknown task token is refused with TaskDoesNotExist (the ingress treats it as 'wait is over')", async () => {
    expect(() => h.local.sendTaskSuccess("local-token-unknown", {})).toThrow(/not waiting/);
    await expect(localSfnClient(h.local).send(new SendTaskSuccessCommand({ taskToken: "local-token-unknown", output: "{}" }))).rejects.toMatchObject({
      name: "TaskDoesNotExist",
    });
  });
});

describe("Catch output → error", () => {
  it("reads Lambda's JSON error envelope (AWS) and a plain cause (local runner) alike", () => {
    const envelope = JSON.stringify({ errorType: "MalformedOutputError", errorMessage: "Unknown tool: x", trace: ["at ..."] });
    expect(causeMessage(envelope)).toBe("Unknown tool: x");
    expect(causeMessage("steps array is empty")).toBe("steps array is empty");
    expect(causeMessage("{not json")).toBe("{not json");
    const err = errorFromCatch({ Error: "RunTimeoutError", Cause: envelope });
    expect(err.name).toBe("RunTimeoutError");
    expect(err.message).toBe("Unknown tool: x");
  });
});
