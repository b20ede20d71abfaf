import { ChannelPrivacy } from "../../lib/ingress/channel-privacy";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { createLogger } from "../../lib/core/observability/logger";
import { StaticBotTokenResolver } from "../../lib/slack-api/bot-token";
import { SlackCardRefresher } from "../../lib/ingress/slack-card-refresher";
import { createWebClient } from "../../lib/slack-api/web-client";
import { TaskStore } from "../../lib/store/task-store";
import { AuthError, RateLimitedError, TruncatedResponseError } from "../../lib/core/errors/taxonomy";
import type { WebClient } from "@slack/web-api";
import { startTestTable, type TestTable } from "../support/dynamo";
import { startFakeSlack, type FakeSlack } from "../../dev/fakes/slack/fake-slack";

let table: TestTable;
let slack: FakeSlack;
let store: TaskStore;
let refresher: SlackCardRefresher;
let n = 0;

beforeAll(async () => {
  [table, slack] = await Promise.all([startTestTable(), startFakeSlack({ botTokens: ["xoxb-test"] })]);
  store = new TaskStore(table.doc, table.tableName);
  refresher = new SlackCardRefresher({
    store,
    tokens: new StaticBotTokenResolver({ botToken: "xoxb-test" }),
    clientFor: (token) => createWebClient(token, { SLACK_API_URL: slack.url }),
    limits: { maxReruns: 3 },
    log: createLogger("test"),
    privacy: new ChannelPrivacy(createLogger("test")),
  });
});
// Slack refused nothing the test did not script: a call the real Slack would refuse fails the test.
afterEach(() => expect(slack.takeRefused()).toEqual([]));
afterAll(async () => Promise.all([table.close(), slack.close()]));
beforeEach(() => slack.reset());

async function newTask() {
  n += 1;
  const thread = { teamId: "T1", channelId: "C1", messageTs: `1700000000.${String(n).padStart(6, "0")}` };
  const { record } = await store.createTask({ thread, requesterId: "U1", requestText: "経費を登録して", pipelineExecutionName: `x${n}` });
  return record;
}

it("posts the first card in the request's thread, stores its ts, then updates it in place", async () => {
  const task = await newTask();
  await refresher.refresh(task.taskId, { kind: "task" });
  const [post] = slack.callsTo("chat.postMessage");
  expect(post?.body).toMatchObject({ channel: "C1", thread_ts: task.thread.messageTs });
  expect(post?.token).toBe("xoxb-test");
  const stored = await store.getTaskOrThrow(task.taskId);
  expect(stored.cards.task).toMatch(/^\d+\.\d+$/);

  await refresher.refresh(task.taskId, { kind: "task" });
  expect(slack.callsTo("chat.postMessage")).toHaveLength(1);
  expect(slack.callsTo("chat.update")[0]?.body).toMatchObject({ channel: "C1", ts: stored.cards.task });
});

it("stores the execution card ts on the Execution record", async () => {
  const task = await newTask();
  await store.createExecution(task.taskId, { executionNo: 1, processVersion: 1, startedBy: "U1" });
  await refresher.refresh(task.taskId, { kind: "execution", executionNo: 1 });
  expect((await store.getExecutionOrThrow(task.taskId, 1)).cardTs).toMatch(/^\d+\.\d+$/);
});

it("a deleted card message is posted again", async () => {
  const task = await newTask();
  await refresher.refresh(task.taskId, { kind: "task" });
  slack.failNext("chat.update", { error: "message_not_found" });
  await refresher.refresh(task.taskId, { kind: "task" });
  expect(slack.callsTo("chat.postMessage")).toHaveLength(2);
});

it("invalid_auth / token_revoked → AuthError", async () => {
  const task = await newTask();
  slack.failNext("chat.postMessage", { error: "token_revoked" });
  await expect(refresher.refresh(task.taskId, { kind: "task" })).rejects.toBeInstanceOf(AuthError);
});

it("rate limited → RateLimitedError", async () => {
  const task = await newTask();
  slack.failNext("chat.postMessage", { status: 429, retryAfterSeconds: 1, times: 5 });
  const err = await refresher.refresh(task.taskId, { kind: "task" }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RateLimitedError);
});

it("other Slack API errors are logged, best effort", async () => {
  const task = await newTask();
  slack.failNext("chat.postMessage", { error: "channel_not_found" });
  await expect(refresher.refresh(task.taskId, { kind: "task" })).resolves.toBeUndefined();
});

it("two refreshes racing on a new card leave one card: the loser deletes its duplicate and updates the winner's", async () => {
  const task = await newTask();
  await Promise.all([refresher.refresh(task.taskId, { kind: "prompt" }), refresher.refresh(task.taskId, { kind: "prompt" })]);
  const held = (await store.getTaskOrThrow(task.taskId)).cards.prompt;
  const deleted = slack.callsTo("chat.delete").map((c) => c.body.ts);
  // Both may have posted before either stored its ts; every posted card but the held one is deleted.
  expect(slack.callsTo("chat.postMessage").length - deleted.length).toBe(1);
  expect(deleted).not.toContain(held);
  expect(slack.callsTo("chat.update").every((c) => c.body.ts === held)).toBe(true);
});

it("the store gives the slot to the first claimant and the winner's ts to the loser", async () => {
  const task = await newTask();
  expect(await store.setCardTs(task.taskId, "process", "1800000001.000001")).toBe("1800000001.000001");
  expect(await store.setCardTs(task.taskId, "process", "1800000001.000002")).toBe("1800000001.000001");
  // Replacing a deleted card message is allowed only for the ts the caller saw.
  expect(await store.setCardTs(task.taskId, "process", "1800000001.000003", "1800000001.000001")).toBe("1800000001.000003");
  expect(await store.setCardTs(task.taskId, "process", "1800000001.000004", "1800000001.000001")).toBe("1800000001.000003");
});

it("the rerun race: two first refreshes of 実行 #2 leave one card, and a duplicate never shows a live button", async () => {
  const task = await newTask();
  await store.createExecution(task.taskId, { executionNo: 1, processVersion: 1, startedBy: "U1" });
  await store.createExecution(task.taskId, { executionNo: 2, processVersion: 1, startedBy: "U1" });
  await store.transitionExecution(task.taskId, 2, "running");
  // The rerun click and StartSession refresh the new run's card at the same moment; neither finds a ts yet.
  await Promise.all([refresher.refresh(task.taskId, { kind: "execution", executionNo: 2 }), refresher.refresh(task.taskId, { kind: "execution", executionNo: 2 })]);
  const posts = slack.callsTo("chat.postMessage");
  expect(posts).toHaveLength(2);
  // Whatever Slack showed for a moment: no posted message carried a button.
  for (const post of posts) expect(JSON.stringify(post.body.blocks)).not.toContain('"type":"actions"');
  const cards = slack.workspace.messages.filter((m) => m.threadTs === task.thread.messageTs && m.text.startsWith("実行 #2"));
  expect(cards).toHaveLength(1);
  const held = (await store.getExecutionOrThrow(task.taskId, 2)).cardTs;
  expect(cards[0]!.ts).toBe(held);
  // The one card left shows the live [中止], whose value names the run by ids only.
  const blocks = JSON.stringify(cards[0]!.blocks);
  expect(blocks).toContain('"type":"actions"');
  expect(blocks).toContain(JSON.stringify(JSON.stringify({ taskId: task.taskId, executionNo: 2 })).slice(1, -1));
});

it("a card drawn from the state the caller holds reads nothing; the slot it claims lands in that state", async () => {
  const task = await newTask();
  // A store that records every read of the task's items.
  const reads: string[] = [];
  const claimOnly = new SlackCardRefresher({
    store: {
      loadHistory: async (taskId) => {
        reads.push(taskId);
        return store.loadHistory(taskId, { cardsOnly: true });
      },
      setCardTs: (...args) => store.setCardTs(...args),
      setExecutionCardTs: (...args) => store.setExecutionCardTs(...args),
    },
    tokens: new StaticBotTokenResolver({ botToken: "xoxb-test" }),
    clientFor: (token) => createWebClient(token, { SLACK_API_URL: slack.url }),
    limits: { maxReruns: 3 },
    log: createLogger("test"),
    privacy: new ChannelPrivacy(createLogger("test")),
  });
  const held = { task, prompts: [], processes: [], executions: [] };
  await claimOnly.refresh(task.taskId, { kind: "task" }, held);
  const stored = await store.getTaskOrThrow(task.taskId);
  expect(held.task.cards.task).toBe(stored.cards.task);
  // The next refresh from the same held state updates the card in place: no second post, no duplicate to delete.
  await claimOnly.refresh(task.taskId, { kind: "task" }, held);
  expect(slack.callsTo("chat.postMessage")).toHaveLength(1);
  expect(slack.callsTo("chat.delete")).toHaveLength(0);
  expect(slack.callsTo("chat.update").map((c) => c.body.ts)).toContain(stored.cards.task);
  expect(reads).toEqual([]);
});

it("a file upload Slack answers ok without the file is not taken as attached (TruncatedResponseError)", async () => {
  const okWithoutFile = { filesUploadV2: async () => ({ ok: true, files: [{ ok: true, files: [] }] }) } as unknown as WebClient;
  const silent = new SlackCardRefresher({ store, tokens: new StaticBotTokenResolver({ botToken: "xoxb-test" }), clientFor: () => okWithoutFile, limits: { maxReruns: 3 }, log: createLogger("test"), privacy: new ChannelPrivacy(createLogger("test")) });
  const thread = { teamId: "T1", channelId: "C1", messageTs: "1700000000.999999" };
  await expect(silent.attachFile(thread, { filename: "r.csv", title: "r", content: "a", comment: "c" })).rejects.toBeInstanceOf(TruncatedResponseError);
});
