import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { startTestTable, type TestTable } from "../support/dynamo";
import { startFakeSlack, type FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { getRequest, signedJson } from "../support/slack-signing";
import { messageEvent, startIngress } from "./ingress-harness";

let table: TestTable;
let slack: FakeSlack;
let h: Awaited<ReturnType<typeof startIngress>>;

beforeAll(async () => {
  [table, slack] = await Promise.all([startTestTable(), startFakeSlack({ clientId: "111.222", clientSecret: "client-secret" })]);
  h = await startIngress(table, slack, { SLACK_REDIRECT_URI: "https://ingress.example/slack/oauth_redirect" });
});
// Slack refused nothing the test did not script: a call the real Slack would refuse fails the test.
afterEach(() => expect(slack.takeRefused()).toEqual([]));
afterAll(async () => Promise.all([table.close(), slack.close()]));

it("install end to end: state cookie, oauth.v2.access, installation stored, events of that workspace authorised", async () => {
  // Before the install, the workspace's events are refused cleanly.
  expect((await h.send(signedJson(messageEvent("T0001")))).statusCode).toBeLessThan(500);
  expect(h.sfnMock.commandCalls(StartExecutionCommand)).toHaveLength(0);

  const start = await h.send(getRequest("/slack/install"));
  expect(start.statusCode).toBe(302);
  const location = new URL(start.headers!.location!);
  expect(location.pathname).toBe("/oauth/v2/authorize");
  expect(location.searchParams.get("client_id")).toBe("111.222");
  expect(location.searchParams.get("scope")).toContain("chat:write");
  expect(location.searchParams.get("redirect_uri")).toBe("https://ingress.example/slack/oauth_redirect");
  const state = location.searchParams.get("state")!;
  const cookie = start.cookies!.find((c) => c.startsWith("slack-app-oauth-state="))!;
  expect(cookie).toContain(state);

  const code = slack.issueOAuthCode();
  const callback = await h.send(getRequest("/slack/oauth_redirect", `code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`, { cookie: cookie.split(";")[0]! }));
  expect(callback.statusCode).toBe(200);
  expect(callback.body).toContain("インストールが完了しました");
  const access = slack.callsTo("oauth.v2.access");
  expect(access).toHaveLength(1);
  expect(access[0]!.body.code).toBe(code);
  const stored = await h.installations.find({ teamId: "T0001", isEnterpriseInstall: false });
  // The token Slack issued for this install is what the app stored.
  expect(stored?.bot?.token).toBe(access[0]!.response?.access_token);

  const res = await h.send(signedJson(messageEvent("T0001", { text: "勤怠を締めて" })));
  expect(res.statusCode).toBe(200);
  expect(h.sfnMock.commandCalls(StartExecutionCommand)).toHaveLength(1);
});

it("a callback without the state cookie fails cleanly and stores nothing", async () => {
  const start = await h.send(getRequest("/slack/install"));
  const state = new URL(start.headers!.location!).searchParams.get("state")!;
  slack.reset();
  const callback = await h.send(getRequest("/slack/oauth_redirect", `code=x&state=${encodeURIComponent(state)}`));
  expect(callback.statusCode).toBe(400);
  expect(callback.body).toContain("インストールに失敗しました");
  expect(slack.callsTo("oauth.v2.access")).toHaveLength(0);
});

it("a forged state fails cleanly", async () => {
  const callback = await h.send(getRequest("/slack/oauth_redirect", "code=x&state=forged", { cookie: "slack-app-oauth-state=forged" }));
  expect(callback.statusCode).toBe(400);
});

it("single-workspace mode (SLACK_BOT_TOKEN): no install routes, every event authorised with that token", async () => {
  const single = await startIngress(table, slack, { SLACK_BOT_TOKEN: "xoxb-single" });
  expect((await single.send(getRequest("/slack/install"))).statusCode).toBe(404);
  await single.send(signedJson(messageEvent("TANY")));
  expect(single.sfnMock.commandCalls(StartExecutionCommand)).toHaveLength(1);
});

it("/freee/connect and /freee/callback are served by the freee module's (Request) => Response handlers", async () => {
  const seen: string[] = [];
  const freee = {
    connect: async (req: Request) => {
      seen.push(req.url);
      const headers = new Headers({ location: "https://freee.example/authorize?x=1" });
      headers.append("set-cookie", "freee_oauth_nonce=n1; HttpOnly");
      return new Response("", { status: 302, headers });
    },
    callback: async (req: Request) => new Response(`ok ${new URL(req.url).searchParams.get("code")}`, { status: 200, headers: { "content-type": "text/html; charset=utf-8" } }),
  };
  const withFreee = await startIngress(table, slack, {}, freee);
  const connect = await withFreee.send(getRequest("/freee/connect", "team=T1&user=U1&sig=s", { host: "ingress.example" }));
  expect(connect.statusCode).toBe(302);
  expect(connect.headers!.location).toBe("https://freee.example/authorize?x=1");
  expect(connect.cookies).toEqual(["freee_oauth_nonce=n1; HttpOnly"]);
  expect(seen[0]).toBe("https://ingress.example/freee/connect?team=T1&user=U1&sig=s");
  const callback = await withFreee.send(getRequest("/freee/callback", "code=abc", { host: "ingress.example", cookie: "freee_oauth_nonce=n1" }));
  expect(callback.body).toBe("ok abc");
  // Without the freee module, the routes are a clean 404.
  expect((await h.send(getRequest("/freee/connect"))).statusCode).toBe(404);
});

it("404: an unknown page answers 「ページが見つかりません」, not a stack trace", async () => {
  const res = await h.send(getRequest("/admin/does-not-exist"));
  expect(res.statusCode).toBe(404);
  expect(res.body).toContain("ページが見つかりません");
});
