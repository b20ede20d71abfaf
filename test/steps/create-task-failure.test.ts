import { afterAll, beforeAll, expect, it } from "vitest";
import { SlackMessages } from "../../lib/core/messages/ja";
import { taskIdFor } from "../../lib/core/domain/records";
import { path, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";

let h: PipelineHarness;
beforeAll(async () => {
  h = await startPipelineHarness();
});
afterAll(async () => h.close());

it("the task item cannot be created: the failure is audited under the workspace and the user still hears it in the thread", async () => {
  const thread = { teamId: "T0001", channelId: "C0001", messageTs: "1799999999.000100" };
  // An input the first state refuses (empty request text): CreateTask fails without a task item.
  const execution = h.local.startExecution(h.machines.taskPipelineArn, taskIdFor(thread), { thread, requesterId: "UREQ", requestText: "" });
  await execution.done;
  expect(path(execution)).toContain("CreateTaskFailed");
  expect(execution.status).toBe("FAILED");
  expect(await h.store.getTask(taskIdFor(thread))).toBeUndefined();
  const audit = await h.store.listAuditByTeam("T0001");
  expect(audit.find((a) => a.action === "error.L1" && a.taskId === undefined && a.details.taskId === taskIdFor(thread))).toBeDefined();
  const notice = h.slack.callsTo("chat.postMessage").find((c) => c.body.thread_ts === thread.messageTs);
  expect(notice?.body).toMatchObject({ channel: "C0001", text: SlackMessages.l1Failed });
});
