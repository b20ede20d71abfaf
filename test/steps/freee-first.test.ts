import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FreeeFirstMessages } from "../../lib/core/messages/ja";
import { renderCard } from "../../lib/ingress/cards";
import { disconnectFreee } from "../../lib/store/freee-disconnect";
import { buildLedger } from "../../lib/store/ledger";
import { Keys } from "../../lib/store/table";
import { makeClient, makeStore } from "../freee/helpers";
import { path, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { expectPipelineFailure, l1NotARequest, slackTexts } from "./fixtures";

/**
 * freee first: a request in a workspace without a usable freee connection ends at the Task card, before any model
 * is asked to plan — with what to do and who can do it. Each way a connection stops being usable: never connected
 * (no item), disconnected by an admin, and marked for reconnect by the token manager when freee refused the refresh.
 */
let h: PipelineHarness;
beforeAll(async () => {
  h = await startPipelineHarness();
});
afterAll(async () => h.close());
beforeEach(async () => {
  h.slack.reset();
  await h.connectFreee();
});

const modelRequests = () => h.anthropic.requests.filter((r) => r.path.endsWith("/messages")).length;

async function expectStoppedBeforeAnyPlan(reason: "not_connected" | "reauth_required") {
  const before = modelRequests();
  const { execution, taskId, thread } = h.startTask();
  await expectPipelineFailure(h, execution, taskId, {
    state: "AnalyzeTask",
    retries: 0,
    errorName: "AuthError",
    layer: "L1",
    message: FreeeFirstMessages.notUsable,
  });
  expect(slackTexts(h).some((t) => t.includes(FreeeFirstMessages.notUsable) && t.includes(FreeeFirstMessages.whatToDo))).toBe(true);
  // No model call at all: the scripted Anthropic server got no request for this task.
  expect(modelRequests()).toBe(before);
  expect(path(execution)).not.toContain("FirstPrompt");
  const history = await h.store.loadHistory(taskId);
  expect(history.task.spec).toBeUndefined();
  expect(history.prompts).toHaveLength(0);
  expect(history.processes).toHaveLength(0);
  expect(history.audit.map((a) => a.action)).toEqual(["task.created", "error.L1"]);
  expect(history.audit[1]!.errorMessage).toContain(`(${reason})`);
  // The Task card: failed, what to do, who does it (the admins, the ホーム tab), and the web admin when it exists.
  const card = JSON.stringify(renderCard(history, { kind: "task" }, { maxReruns: 3 }, { adminUrl: "https://web.example/admin" }).blocks);
  expect(card).toContain("失敗");
  expect(card).toContain("管理者");
  expect(card).toContain("「ホーム」タブ");
  expect(card).toContain("<https://web.example/admin/settings|管理画面の設定>");
  expect(card).not.toContain('"type":"actions"');
  // What Slack got is that card (the thread's one message, updated), not a plan.
  expect(slackTexts(h).some((t) => t.includes("実行方針"))).toBe(false);
  const ledger = buildLedger(await h.store.listAuditByTeam(thread.teamId), { since: "2000-01-01T00:00:00Z", until: "2100-01-01T00:00:00Z" });
  expect(ledger.tasks.find((t) => t.taskId === taskId)).toMatchObject({ outcome: "failed", errorClass: "AuthError" });
  return ledger;
}

describe("freee first: no plan without a usable freee connection", () => {
  it("never connected (no connection item): the Task card says what to do, no model call, error.L1 counted once", async () => {
    await h.table.doc.send(new DeleteCommand({ TableName: h.table.tableName, Key: Keys.freeeConnection("T0001") }));
    const failuresBefore = buildLedger(await h.store.listAuditByTeam("T0001"), { since: "2000-01-01T00:00:00Z", until: "2100-01-01T00:00:00Z" }).failuresByClass;
    const countOf = (f: typeof failuresBefore) => f.find((x) => x.layer === "L1" && x.errorClass === "AuthError")?.count ?? 0;
    const ledger = await expectStoppedBeforeAnyPlan("not_connected");
    expect(countOf(ledger.failuresByClass)).toBe(countOf(failuresBefore) + 1);
  });

  it("disconnected by an admin (App Home): stopped the same way", async () => {
    expect(await disconnectFreee(h.table.doc, h.table.tableName, { teamId: "T0001", by: "UADMIN", at: new Date().toISOString() })).toMatchObject({ disconnected: true });
    await expectStoppedBeforeAnyPlan("not_connected");
  });

  it("freee refused the refresh (revoked at freee): the token manager marks the connection, the next request is stopped", async () => {
    h.freee.expireAccessTokens();
    h.freee.revokeRefreshTokens();
    // Any freee call of the workspace (here a read with the connection the steps use) finds the refresh refused.
    const { client } = makeClient(makeStore(h.table, h.env.FREEE_TOKEN_LOCAL_KEY), h.freee, "T0001");
    await expect(client.request({ method: "GET", path: "/api/1/users/me" })).rejects.toMatchObject({ name: "AuthError" });
    await expectStoppedBeforeAnyPlan("reauth_required");
  });

  it("a usable connection again (reconnected): the request goes on to L1 as before", async () => {
    await disconnectFreee(h.table.doc, h.table.tableName, { teamId: "T0001", by: "UADMIN", at: new Date().toISOString() });
    await h.connectFreee();
    h.anthropic.enqueue(l1NotARequest("こんにちは。"));
    const { execution, taskId } = h.startTask("こんにちは");
    await execution.done;
    expect(execution.status).toBe("SUCCEEDED");
    expect((await h.store.getTaskOrThrow(taskId)).status).toBe("answered");
  });
});
