import { afterAll, beforeAll, expect, it } from "vitest";
import { startFaultProxy, type FaultProxy } from "../../dev/chaos/fault-proxy";
import { writeDecision } from "../../lib/store/decision";
import { createDocumentClient } from "../../lib/store/dynamo-client";
import { TaskStore } from "../../lib/store/task-store";
import { startTestTable, type TestTable } from "../support/dynamo";
import { taskAwaitingPrompt } from "../ingress/actions/harness";

/**
 * The chaos cell "DynamoDB × approval (prompt) × lost": the decision write reached DynamoDB and applied, its reply
 * was lost, and the SDK sent the same request again. That retry must resume the pipeline with the task token —
 * not answer "already decided" and leave the approval waiting until it expires. A second click stays a double click.
 */
let table: TestTable;
let proxy: FaultProxy;
beforeAll(async () => {
  table = await startTestTable();
  proxy = await startFaultProxy({ dependency: "DynamoDB", target: table.endpoint, phases: () => [] });
});
afterAll(async () => {
  await proxy.close();
  await table.close();
});

it("a decision whose reply was lost resumes with the token on the SDK's retry; another click is refused", async () => {
  const store = new TaskStore(table.doc, table.tableName);
  const task = await taskAwaitingPrompt(store, { token: "TOKEN-LOST-REPLY" });
  const doc = createDocumentClient({ ...table.env, DYNAMODB_ENDPOINT: proxy.url });
  const write = (decidedAt: string) =>
    writeDecision(doc, table.tableName, { kind: "prompt", taskId: task.taskId, version: 1, teamId: task.thread.teamId, asAdmin: false, decision: { decision: "approved", actorId: task.requesterId, decidedAt } });
  proxy.arm({ when: (r) => r.headers["x-amz-target"] === "DynamoDB_20120810.UpdateItem", kind: "lost" });
  expect(await write("2026-12-01T00:00:00.000Z")).toEqual({ applied: true, taskToken: "TOKEN-LOST-REPLY" });
  expect(proxy.hits.map((h) => h.kind)).toEqual(["lost"]);
  expect((await store.getVersionOrThrow("prompt", task.taskId, 1)).status).toBe("approved");
  expect(await write("2026-12-01T00:00:01.000Z")).toMatchObject({ applied: false, reason: "already_decided" });
});
