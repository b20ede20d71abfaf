import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { MetricNames, METRICS_NAMESPACE } from "../../lib/core/observability/metrics";
import type { TestTable } from "../support/dynamo";
import type { FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { nowSeconds, signature, signedJson } from "../support/slack-signing";
import { install, messageEvent, startIngress, startIngressOnFakes } from "./ingress-harness";

let table: TestTable;
let slack: FakeSlack;
let h: Awaited<ReturnType<typeof startIngress>>;

beforeAll(async () => {
  ({ table, slack, h } = await startIngressOnFakes());
  await install(h, "T1");
});
// Slack refused nothing the test did not script: a call the real Slack would refuse fails the test.
afterEach(() => expect(slack.takeRefused()).toEqual([]));
afterAll(async () => Promise.all([table.close(), slack.close()]));
beforeEach(() => {
  h.sfnMock.resetHistory();
  slack.reset();
});

const starts = () => h.sfnMock.commandCalls(StartExecutionCommand).map((c) => c.args[0].input);

describe("signature", () => {
  const body = () => messageEvent("T1");
  it("bad signature → 401, no state change", async () => {
    const res = await h.send(signedJson(body(), { signature: "v0=" + "0".repeat(64) }));
    expect(res.statusCode).toBe(401);
    expect(starts()).toHaveLength(0);
  });
  it("signed with another secret → 401", async () => {
    expect((await h.send(signedJson(body(), { secret: "other-secret" }))).statusCode).toBe(401);
  });
  it("missing signature / timestamp headers → 401", async () => {
    expect((await h.send(signedJson(body(), { signature: null }))).statusCode).toBe(401);
    expect((await h.send(signedJson(body(), { timestampHeader: null }))).statusCode).toBe(401);
    expect(starts()).toHaveLength(0);
  });
  it("stale timestamp (> 5 min in the past) → 401", async () => {
    expect((await h.send(signedJson(body(), { timestamp: nowSeconds() - 301 }))).statusCode).toBe(401);
    expect(starts()).toHaveLength(0);
  });
  it("future timestamp (> 5 min ahead) → 401 (Bolt alone would accept it)", async () => {
    expect((await h.send(signedJson(body(), { timestamp: nowSeconds() + 301 }))).statusCode).toBe(401);
    expect(starts()).toHaveLength(0);
  });
  it("a body changed after signing → 401", async () => {
    const event = signedJson(body());
    event.body = event.body!.replace("経費", "給与");
    expect((await h.send(event)).statusCode).toBe(401);
  });
  it("a timestamp header that is not the signed one → 401", async () => {
    const payload = JSON.stringify(body());
    const ts = nowSeconds();
    const res = await h.send(signedJson(payload, { timestamp: ts, timestampHeader: String(ts - 1), signature: signature(payload, ts) }));
    expect(res.statusCode).toBe(401);
  });
});

it("url_verification answers the challenge", async () => {
  const res = await h.send(signedJson({ token: "x", challenge: "challenge-abc", type: "url_verification" }));
  expect(res.statusCode).toBe(200);
  expect(JSON.parse(res.body)).toEqual({ challenge: "challenge-abc" });
});

it("app_rate_limited is acknowledged (200), logged and counted; a malformed one is a 400, an unsigned one a 401", async () => {
  const callback = { token: "x", type: "app_rate_limited", team_id: "T1", minute_rate_limited: 1518467820, api_app_id: "A1" };
  const lines: string[] = [];
  // The setup turns EMF lines off for the suites that do not read them.
  vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
  // The EMF line goes to stdout, the warning to stderr (Powertools' console.warn).
  const capture = (chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  };
  const writes = [vi.spyOn(process.stdout, "write").mockImplementation(capture), vi.spyOn(process.stderr, "write").mockImplementation(capture)];
  let res;
  try {
    res = await h.send(signedJson(callback));
  } finally {
    for (const w of writes) w.mockRestore();
    vi.unstubAllEnvs();
  }
  expect(res.statusCode).toBe(200);
  expect(starts()).toHaveLength(0);
  const records = lines.flatMap((l) => l.split("\n")).filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(records.find((r) => r.message === "Slack rate-limited the app's events for a workspace")).toMatchObject({ level: "WARN", team_id: "T1", minute_rate_limited: 1518467820 });
  const metric = records.find((r) => r[MetricNames.slackCallbacks] === 1);
  expect(metric, lines.join("")).toMatchObject({ Type: "app_rate_limited", service: "slack-mcp-agent" });
  expect((metric!._aws as { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][] }> }).CloudWatchMetrics[0]).toMatchObject({ Namespace: METRICS_NAMESPACE, Dimensions: [["service", "Type"]] });

  for (const bad of [{ ...callback, team_id: undefined }, { ...callback, minute_rate_limited: "soon" }, { ...callback, team_id: "" }]) {
    expect((await h.send(signedJson(bad))).statusCode, JSON.stringify(bad)).toBe(400);
  }
  expect((await h.send(signedJson(callback, { secret: "other-secret" }))).statusCode).toBe(401);
});

describe("messages start tasks", () => {
  it("a Japanese message in a base64-encoded body starts exactly one task, text intact", async () => {
    const text = "来月から山田太郎さん（営業部）の基本給を３０万円に変更してください 🙏";
    const event = messageEvent("T1", { text });
    const res = await h.send(signedJson(event, { base64: true }));
    expect(res.statusCode).toBe(200);
    const calls = starts();
    expect(calls).toHaveLength(1);
    const input = JSON.parse(calls[0]!.input!);
    expect(input).toEqual({ thread: { teamId: "T1", channelId: "C1", messageTs: event.event.ts }, requesterId: "UREQ", requestText: text });
    expect(calls[0]!.name).toBe(`T1-C1-${event.event.ts.replace(".", "_")}`);
    const task = await h.store.getTaskOrThrow(calls[0]!.name!);
    expect(task.requestText).toBe(text);
  });

  it("11 concurrent deliveries with different event_ids → one StartExecution name, one task", async () => {
    const base = messageEvent("T1", { text: "請求書を作成して" });
    const deliveries = Array.from({ length: 11 }, (_, i) => ({ ...base, event_id: `EvDUP${i}` }));
    const responses = await Promise.all(
      deliveries.map((d, i) => h.send(signedJson(d, i % 2 === 0 ? { headers: { "x-slack-retry-num": String(i), "x-slack-retry-reason": "http_timeout" } } : {}))),
    );
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    const names = new Set(starts().map((s) => s.name));
    expect(names.size).toBe(1);
    const inputs = new Set(starts().map((s) => s.input));
    expect(inputs.size).toBe(1); // nothing per-delivery in the input
    const tasks = await h.store.listRecentTasks("T1", 100);
    expect(tasks.filter((t) => t.thread.messageTs === base.event.ts)).toHaveLength(1);
  });

  it("the message and its app_mention (same ts) are one task", async () => {
    const msg = messageEvent("T1", { text: "<@UBOT> 経費精算をお願いします" });
    const mention = { ...msg, event_id: "EvMention", event: { ...msg.event, type: "app_mention" } };
    await Promise.all([h.send(signedJson(msg)), h.send(signedJson(mention))]);
    expect(new Set(starts().map((s) => s.name)).size).toBe(1);
    expect(JSON.parse(starts()[0]!.input!).requestText).toBe("経費精算をお願いします");
  });

  it("direct messages start a task", async () => {
    await h.send(signedJson(messageEvent("T1", { channel: "D1", channel_type: "im" })));
    expect(starts()).toHaveLength(1);
  });

  it.each([
    ["this app's own bot message", { bot_id: "BBOT", user: "UBOT" }],
    ["another bot's message", { bot_id: "BOTHER", user: "UOTHERBOT" }],
    ["subtype bot_message", { subtype: "bot_message", user: undefined, username: "webhook" }],
    ["an edit (message_changed)", { subtype: "message_changed", message: { text: "x" } }],
    ["a deletion", { subtype: "message_deleted" }],
    ["a channel join", { subtype: "channel_join" }],
    ["a reply in a thread", { thread_ts: "1700000000.000001" }],
    ["an empty mention", { text: "<@UBOT>" }],
  ])("ignores %s", async (_name, patch) => {
    const res = await h.send(signedJson(messageEvent("T1", patch)));
    expect(res.statusCode).toBe(200);
    expect(starts()).toHaveLength(0);
  });

  it("a workspace that is not installed gets a clean refusal (no 5xx, nothing started)", async () => {
    const res = await h.send(signedJson(messageEvent("TNOTINSTALLED")));
    expect(res.statusCode).toBeLessThan(500);
    expect(starts()).toHaveLength(0);
  });

  it("a body that is not JSON (validly signed) → 400, not 500", async () => {
    const res = await h.send(signedJson("{not json"));
    expect(res.statusCode).toBe(400);
  });

  it("StartExecution throttled → deliberate 500 so Slack redelivers", async () => {
    h.sfnMock.on(StartExecutionCommand).rejectsOnce(Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException", $metadata: { httpStatusCode: 400 } }));
    const res = await h.send(signedJson(messageEvent("T1")));
    expect(res.statusCode).toBe(500);
  });
});

describe("installation lifecycle events", () => {
  it("app_uninstalled deletes the installation; later events are refused cleanly", async () => {
    await install(h, "TGONE");
    const uninstall = { ...messageEvent("TGONE"), event: { type: "app_uninstalled", event_ts: "1710000000.1" } };
    expect((await h.send(signedJson(uninstall))).statusCode).toBe(200);
    expect(await h.installations.find({ teamId: "TGONE", isEnterpriseInstall: false })).toBeUndefined();
    h.sfnMock.resetHistory();
    expect((await h.send(signedJson(messageEvent("TGONE")))).statusCode).toBeLessThan(500);
    expect(starts()).toHaveLength(0);
  });

  it("tokens_revoked (bot) deletes the installation", async () => {
    await install(h, "TREVOKE");
    const revoked = { ...messageEvent("TREVOKE"), event: { type: "tokens_revoked", tokens: { bot: ["UBOT"] }, event_ts: "1710000000.2" } };
    expect((await h.send(signedJson(revoked))).statusCode).toBe(200);
    expect(await h.installations.find({ teamId: "TREVOKE", isEnterpriseInstall: false })).toBeUndefined();
  });
});

it("unknown paths → 404", async () => {
  const res = await h.send({ ...signedJson({}), rawPath: "/nope", requestContext: { ...signedJson({}).requestContext, http: { method: "GET", path: "/nope", sourceIp: "127.0.0.1" } } });
  expect(res.statusCode).toBe(404);
});
