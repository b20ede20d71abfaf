import { afterAll, beforeAll, expect, it } from "vitest";
import { AuthError } from "../../lib/core/errors/taxonomy";
import { InstallationBotTokenResolver } from "../../lib/slack-api/bot-token";
import { classifySlackError, createWebClient } from "../../lib/slack-api/web-client";
import { startFakeSlack, type FakeSlack } from "../../dev/fakes/slack/fake-slack";

/** The Slack app's credential failing is an AuthError that says so: App Home, the web admin and the report name it Slack 接続エラー. */
let slack: FakeSlack;
beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(async () => slack.close());

it("a token Slack does not know, and a workspace with no installation, are the Slack app's AuthError", async () => {
  const client = createWebClient("xoxb-not-issued", { SLACK_API_URL: slack.url });
  const thrown = await client.chat.postMessage({ channel: "C1", text: "x" }).then(
    () => undefined,
    (err: unknown) => err,
  );
  const err = classifySlackError(thrown, "chat.postMessage");
  expect(err).toBeInstanceOf(AuthError);
  expect((err as AuthError).service).toBe("slack");
  expect((err as AuthError).details).toMatchObject({ service: "slack" });

  const missing = await new InstallationBotTokenResolver({ find: async () => undefined }).resolve("TNONE").then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(missing).toBeInstanceOf(AuthError);
  expect((missing as AuthError).service).toBe("slack");
});
