import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { parse } from "yaml";
import { BOT_SCOPES } from "../../lib/ingress/oauth-routes";
import { startFakeSlack } from "../../dev/fakes/slack/fake-slack";

/**
 * The bot scopes the app asks for are the ones its code needs: each Web API method the code calls and each event
 * the manifest subscribes to needs the scopes below (Slack's method and event reference pages), and nothing else
 * is requested. A method not in the table fails the test: look up its scope and add it.
 */
const METHOD_SCOPES: Record<string, string[]> = {
  "chat.postMessage": ["chat:write"],
  "chat.update": ["chat:write"],
  "chat.delete": ["chat:write"],
  // App Home links each recent task to its thread; Slack requires no scope for it.
  "chat.getPermalink": [],
  "chat.postEphemeral": ["chat:write"],
  "views.open": [],
  "views.push": [],
  "views.update": [],
  "views.publish": [],
  "users.info": ["users:read"],
  // The web admin's approver fields list the workspace's members (lib/web-admin/people.ts).
  "users.list": ["users:read"],
  // Also the download of the file's url_private (lib/mcp/slack-files.ts), which needs the same scope.
  "files.info": ["files:read"],
  // files.getUploadURLExternal + files.completeUploadExternal.
  "files.uploadV2": ["files:write"],
  "conversations.open": ["im:write"],
  "conversations.info": ["channels:read", "groups:read", "im:read", "mpim:read"],
  "usergroups.list": ["usergroups:read"],
  "usergroups.users.list": ["usergroups:read"],
  // The web admin's single-workspace mode asks which workspace its token belongs to: no scope.
  "auth.test": [],
  // Sign in with Slack's code exchange (lib/web-admin/openid.ts): the user's openid scopes, no bot scope.
  "openid.connect.token": [],
};
const EVENT_SCOPES: Record<string, string[]> = {
  app_mention: ["app_mentions:read"],
  "message.channels": ["channels:history"],
  "message.groups": ["groups:history"],
  "message.im": ["im:history"],
  "message.mpim": ["mpim:history"],
  app_home_opened: [],
  app_uninstalled: [],
  tokens_revoked: [],
};
const NAMESPACES = "chat|views|users|files|conversations|reactions|pins|bookmarks|usergroups|team|bots|reminders|dnd|emoji|auth|apps";
const NOT_API = new Set(["map", "filter", "forEach", "some", "every", "find", "flatMap", "slice", "push", "reduce", "includes", "length", "join", "sort"]);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(path) ? [path] : [];
  });
}

/** The Web API methods the shipped code calls (lib/, lambdas/, wiring/), with where. */
function calledMethods(): Map<string, string> {
  const called = new Map<string, string>();
  for (const file of [...sources("lib"), ...sources("lambdas"), ...sources("wiring")]) {
    const text = readFileSync(file, "utf8").replace(/^\s*(\/\/|\*).*$/gm, "");
    // The whole dotted name: usergroups.users.list is one method, not users.list.
    for (const m of text.matchAll(new RegExp(`\\.(${NAMESPACES})((?:\\.\\w+)+)\\(`, "g"))) {
      if (!NOT_API.has(m[2]!.split(".").pop()!)) called.set(`${m[1]}${m[2]}`, file);
    }
    for (const m of text.matchAll(/\.(filesUploadV2)\(/g)) called.set("files.uploadV2", file);
    // A method called by name (apiCall) or by its URL, past the WebClient's typed methods.
    for (const m of text.matchAll(/\.apiCall\(\s*["'`]([\w.]+)["'`]/g)) called.set(m[1]!, file);
    for (const m of text.matchAll(/slack\.com\/api\/([\w.]+)/g)) called.set(m[1]!, file);
  }
  return called;
}

it("the bot scopes requested are exactly those the called Web API methods and the subscribed events need", () => {
  const manifest = parse(readFileSync("slack/manifest.yaml", "utf8")) as { oauth_config: { scopes: { bot: string[] } }; settings: { event_subscriptions: { bot_events: string[] } } };
  const called = calledMethods();
  expect(called.size, "no Web API call found: the scan is broken").toBeGreaterThan(5);
  const needed = new Set<string>();
  for (const [method, file] of called) {
    expect(METHOD_SCOPES, `${file} calls ${method}: add its scopes to METHOD_SCOPES`).toHaveProperty([method]);
    for (const scope of METHOD_SCOPES[method]!) needed.add(scope);
  }
  for (const event of manifest.settings.event_subscriptions.bot_events) {
    expect(EVENT_SCOPES, `the manifest subscribes to ${event}: add its scopes to EVENT_SCOPES`).toHaveProperty([event]);
    for (const scope of EVENT_SCOPES[event]!) needed.add(scope);
  }
  expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([...needed].sort());
  expect([...BOT_SCOPES].sort()).toEqual([...needed].sort());
});

it("the Slack fake grants an installation exactly the scopes the app asks for (its missing_scope answers stay true to the manifest)", async () => {
  const slack = await startFakeSlack({ clientId: "scopes-client", clientSecret: "scopes-secret" });
  try {
    const code = slack.issueOAuthCode();
    const out = (await (await fetch(`${slack.url}oauth.v2.access`, { method: "POST", body: new URLSearchParams({ client_id: "scopes-client", client_secret: "scopes-secret", code }) })).json()) as { ok: boolean; scope: string };
    expect(out.ok).toBe(true);
    expect(out.scope.split(",").sort()).toEqual([...BOT_SCOPES].sort());
  } finally {
    await slack.close();
  }
});
