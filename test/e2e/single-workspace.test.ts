import { afterAll, beforeAll, expect, it } from "vitest";
import { startLocalStack, type LocalStack } from "../../dev/local/local-stack";
import { testDynamoEndpoint, uniqueTableName } from "../support/dynamo";
import { blockActionsPayload, messageEnvelope } from "../../dev/local/slack-payloads";
import { deliverEvent, deliverInteraction } from "../../dev/local/slack-signature";
import { startFakeSlack, type FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { TEST_SIGNING_SECRET } from "../support/slack-signing";
import { waitFor } from "./support";

/**
 * `npm run dev` with Slack credentials (single-workspace mode, what the tunnel recipe of docs/dev.md uses):
 * no sandbox, Slack's Web API at SLACK_API_URL (here the recording fake standing in for slack.com), requests
 * verified with SLACK_SIGNING_SECRET, and the scripted freee connected to the bot token's own workspace.
 */
let slack: FakeSlack;
let stack: LocalStack;
beforeAll(async () => {
  process.env.LOG_LEVEL = "SILENT";
  slack = await startFakeSlack({ botTokens: ["xoxb-single-workspace"] });
  // A private channel: the HR plan's card carries its approve button there (the public-channel card, approved in
  // the private view, is test/e2e/approval-policy.test.ts).
  slack.directory.addChannel({ id: "C0001", isPrivate: true, name: "payroll" });
  stack = await startLocalStack({
    PATH: process.env.PATH,
    LOG_LEVEL: "SILENT",
    PORT: "0",
    DATA_DIR: ":memory:",
    DYNAMODB_ENDPOINT: testDynamoEndpoint(),
    TABLE_NAME: uniqueTableName("single-workspace"),
    SLACK_BOT_TOKEN: "xoxb-single-workspace",
    SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET,
    SLACK_API_URL: slack.url,
    SANDBOX_STEP_DELAY_MS: "0",
    LOCAL_WAIT_MS: "20",
    LOCAL_RETRY_MS: "0",
    LOCAL_APPROVAL_POLICY: "one_person",
  });
}, 180_000);
afterAll(async () => {
  await stack?.close();
  await slack?.close();
});

it("single-workspace mode: no sandbox, signed events start tasks, cards go to SLACK_API_URL with the bot token", { timeout: 60_000 }, async () => {
  expect(stack.mode).toEqual({ slack: "single-workspace", model: "scripted", freee: "scripted" });
  expect(stack.slack).toBeUndefined();
  expect((await fetch(`${stack.url}/sandbox`)).status).toBe(404);

  // A request signed with another secret is refused; one signed with SLACK_SIGNING_SECRET starts a task.
  const who = { teamId: "T0001", userId: "UREQ", channelId: "C0001", appId: "A0001", botUserId: "UBOT" };
  const envelope = messageEnvelope(who, { ts: "1800000000.000100", text: "来月から山田さんの基本給を30万円に変更して" });
  expect((await deliverEvent(`${stack.url}/slack/events`, envelope, "wrong-secret-0123456789")).status).toBe(401);
  expect((await deliverEvent(`${stack.url}/slack/events`, envelope, TEST_SIGNING_SECRET)).status).toBe(200);

  const card = await waitFor("the prompt card in Slack", () => slack.callsTo("chat.postMessage").find((c) => String(c.body.text).startsWith("実行方針 v1")));
  expect(card.token).toBe("xoxb-single-workspace");
  expect(card.body.thread_ts).toBe("1800000000.000100");
  // Approve both plans with signed clicks; the run uses the scripted freee, connected to the workspace auth.test
  // named (the fake answers T0001), through the MCP server.
  const click = async (kind: string) => {
    const call = await waitFor(`the ${kind} approve button`, () => slack.calls.find((c) => buttonValue(c.body, kind) !== undefined));
    const payload = blockActionsPayload(who, { triggerId: slack.issueTriggerId(), actionId: "approve_version", value: buttonValue(call.body, kind)!, messageTs: "1800000000.999999", threadTs: "1800000000.000100" });
    expect((await deliverInteraction(`${stack.url}/slack/events`, payload, TEST_SIGNING_SECRET)).status).toBe(200);
  };
  await click("prompt");
  await click("process");
  const taskId = "T0001-C0001-1800000000_000100";
  await waitFor("completed", async () => (await stack.store.loadHistory(taskId)).task.status === "completed");
  const h = await stack.store.loadHistory(taskId);
  // The scripted plan: the employee list, then 山田's pay rule (the name resolved by the preview).
  expect(h.audit.filter((a) => a.action === "freee.tool_completed").map((a) => a.details.tool)).toEqual(["freee_hr_list_employees", "freee_hr_update_basic_pay_rule"]);
  expect(slack.callsTo("auth.test").length).toBeGreaterThanOrEqual(1);
});

/** The value of an approve button for `kind` in a chat.postMessage / chat.update body, if it has one. */
function buttonValue(body: Record<string, unknown>, kind: string): string | undefined {
  for (const block of (Array.isArray(body.blocks) ? body.blocks : []) as { type: string; elements?: { action_id?: string; value?: string }[] }[]) {
    for (const el of block.type === "actions" ? (block.elements ?? []) : []) {
      if (el.action_id === "approve_version" && el.value !== undefined && (JSON.parse(el.value) as { kind?: string }).kind === kind) return el.value;
    }
  }
  return undefined;
}
