import { afterAll, beforeAll, expect, it } from "vitest";
import { FAKE_SLACK_BOT_TOKEN, startFakeSlack, type FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { createLogger } from "../../lib/core/observability/logger";
import { StaticBotTokenResolver } from "../../lib/slack-api/bot-token";
import { createWebClient } from "../../lib/slack-api/web-client";
import { SlackPeople } from "../../lib/web-admin/people";

/**
 * 設定's member list (lib/web-admin/people.ts) against the Slack fake: kept a while per warm instance (users.list is
 * Tier 2), asked again once that passes, and a failure never kept (the next page asks Slack again).
 */
let slack: FakeSlack;
beforeAll(async () => {
  slack = await startFakeSlack();
  slack.workspace.addUser({ id: "UHANAKO", teamId: "T0001", displayName: "経理 花子" });
});
afterAll(async () => slack?.close());

it("keeps a workspace's list for its TTL, asks again after it, and keeps no failure", async () => {
  let now = 1_000_000;
  const people = new SlackPeople(new StaticBotTokenResolver({ botToken: FAKE_SLACK_BOT_TOKEN }), (t) => createWebClient(t, { SLACK_API_URL: slack.url }), createLogger("people-test"), { ttlMs: 60_000, clock: () => now });
  const calls = () => slack.callsTo("users.list").length;
  const first = await people.of("T0001");
  expect(first).toMatchObject({ kind: "listed", members: [{ id: "UHANAKO", name: "経理 花子" }] });
  const asked = calls();
  now += 59_000;
  expect(await people.of("T0001")).toBe(first);
  expect(calls()).toBe(asked);
  now += 2_000;
  slack.failNext("users.list", { error: "internal_error" });
  expect(await people.of("T0001")).toMatchObject({ kind: "typed", failure: { name: "WebAPIPlatformError" } });
  expect(await people.of("T0001")).toMatchObject({ kind: "listed" });
  expect(calls()).toBe(asked + 2);
});
