import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WebClient, type WebAPICallError } from "@slack/web-api";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { FAKE_SLACK_BOT_TOKEN, FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { createWebClient } from "../../lib/slack-api/web-client";

/** Each rule of the Slack fake, shown through the app's own WebClient settings (lib/slack-api/web-client.ts). */

let now = 1_800_000_000_000;
let slack: FakeSlack;
let client: WebClient;

beforeEach(async () => {
  slack = await new FakeSlack({ clock: () => now }).start();
  client = createWebClient(FAKE_SLACK_BOT_TOKEN, { SLACK_API_URL: slack.url });
});
afterEach(() => slack.close());

async function refusal(call: Promise<unknown>): Promise<{ error: string; data: any }> {
  const err = (await call.then(
    () => {
      throw new Error("Slack accepted the call");
    },
    (e: unknown) => e,
  )) as WebAPICallError & { data: any };
  return { error: err.data?.error ?? err.code, data: err.data };
}

const section = (text: string) => ({ type: "section", text: { type: "mrkdwn", text } });

describe("Slack fake: tokens", () => {
  it("no token: not_authed; a token Slack never issued or revoked: invalid_auth", async () => {
    expect((await refusal(createWebClient(undefined, { SLACK_API_URL: slack.url }).auth.test())).error).toBe("not_authed");
    expect((await refusal(createWebClient("xoxb-made-up", { SLACK_API_URL: slack.url }).auth.test())).error).toBe("invalid_auth");
    slack.revokeToken(FAKE_SLACK_BOT_TOKEN);
    expect((await refusal(client.auth.test())).error).toBe("invalid_auth");
  });
});

describe("Slack fake: users.info", () => {
  it("answers as Slack does: team_id, is_admin, is_owner; user_not_found for an unknown id; missing_scope without users:read", async () => {
    slack.workspace.addUser({ id: "UOWNER", teamId: "T0001", isOwner: true });
    slack.workspace.addUser({ id: "UMEMBER", teamId: "T0001" });
    slack.workspace.addUser({ id: "UGUEST", teamId: "TOTHERORG", isAdmin: true });
    const owner = await client.users.info({ user: "UOWNER" });
    expect(owner.user).toMatchObject({ id: "UOWNER", team_id: "T0001", is_owner: true, is_admin: true, deleted: false });
    expect((await client.users.info({ user: "UMEMBER" })).user).toMatchObject({ team_id: "T0001", is_admin: false, is_owner: false });
    // A Slack Connect member keeps their own workspace.
    expect((await client.users.info({ user: "UGUEST" })).user).toMatchObject({ team_id: "TOTHERORG", is_admin: true });
    expect((await refusal(client.users.info({ user: "UNOBODY" }))).error).toBe("user_not_found");
    slack.addBotToken("xoxb-old-install", { scopes: ["chat:write"] });
    const old = await refusal(createWebClient("xoxb-old-install", { SLACK_API_URL: slack.url }).users.info({ user: "UOWNER" }));
    expect(old).toMatchObject({ error: "missing_scope", data: { needed: "users:read", provided: "chat:write" } });
  });
});

describe("Slack fake: users.list", () => {
  it("pages the workspace's members by cursor, deleted and bots and Slackbot among them; invalid_cursor; missing_scope without users:read", async () => {
    slack.workspace.addUser({ id: "UA", teamId: "T0001", displayName: "あ", realName: "A さん" });
    slack.workspace.addUser({ id: "UB", teamId: "T0001", deleted: true });
    slack.workspace.addUser({ id: "UC", teamId: "T0001", isBot: true });
    slack.workspace.addUser({ id: "UGUEST", teamId: "TOTHERORG" });
    const first = await client.users.list({ limit: 2 });
    expect(first.members?.map((m) => m.id)).toEqual(["UA", "UB"]);
    expect(first.members?.[0]).toMatchObject({ profile: { display_name: "あ", real_name: "A さん" }, is_bot: false, deleted: false });
    expect(first.members?.[1]).toMatchObject({ deleted: true });
    const cursor = first.response_metadata?.next_cursor;
    expect(cursor).not.toBe("");
    const second = await client.users.list({ limit: 2, cursor: cursor! });
    expect(second.members?.map((m) => [m.id, m.is_bot])).toEqual([["UC", true], ["USLACKBOT", false]]);
    expect(second.response_metadata?.next_cursor).toBe("");
    // No limit: the whole set at once; another workspace's member is not in it.
    expect((await client.users.list({})).members?.map((m) => m.id)).toEqual(["UA", "UB", "UC", "USLACKBOT"]);
    expect((await refusal(client.users.list({ cursor: "bm90LWEtY3Vyc29y" }))).error).toBe("invalid_cursor");
    slack.addBotToken("xoxb-old-install", { scopes: ["chat:write"] });
    const old = await refusal(createWebClient("xoxb-old-install", { SLACK_API_URL: slack.url }).users.list({}));
    expect(old).toMatchObject({ error: "missing_scope", data: { needed: "users:read" } });
  });
});

describe("Slack fake: Block Kit limits answer invalid_blocks", () => {
  it("more than 50 blocks in a message", async () => {
    const blocks = Array.from({ length: 51 }, (_, i) => section(`line ${i}`));
    const res = await refusal(client.chat.postMessage({ channel: "C1", text: "x", blocks }));
    expect(res.error).toBe("invalid_blocks");
    expect(res.data.errors).toEqual(["no more than 50 items allowed [json-pointer:/blocks]"]);
    expect((await client.chat.postMessage({ channel: "C1", text: "x", blocks: blocks.slice(0, 50) })).ok).toBe(true);
  });

  it("a section text over 3,000 characters", async () => {
    const res = await refusal(client.chat.postMessage({ channel: "C1", text: "x", blocks: [section("あ".repeat(3001))] }));
    expect(res.error).toBe("invalid_blocks");
    expect(res.data.response_metadata.messages).toEqual(["[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]"]);
  });

  it("a button value over 2,000 characters", async () => {
    const button = { type: "button", action_id: "approve", text: { type: "plain_text", text: "承認" }, value: "v".repeat(2001) } as const;
    const res = await refusal(client.chat.postMessage({ channel: "C1", text: "x", blocks: [{ type: "actions", elements: [button] }] }));
    expect(res.data.errors).toEqual(["must be less than 2001 characters [json-pointer:/blocks/0/elements/0/value]"]);
  });

  it("a header over 150 characters, and a header in mrkdwn", async () => {
    const res = await refusal(client.chat.postMessage({ channel: "C1", text: "x", blocks: [{ type: "header", text: { type: "plain_text", text: "h".repeat(151) } }, { type: "header", text: { type: "mrkdwn", text: "h" } } as never] }));
    expect(res.data.errors).toEqual(["must be less than 151 characters [json-pointer:/blocks/0/text/text]", 'must be one of "plain_text" [json-pointer:/blocks/1/text/type]']);
  });

  it("chat.update is held to the same limits, and a message needs text or blocks", async () => {
    const posted = await client.chat.postMessage({ channel: "C1", text: "card" });
    expect((await refusal(client.chat.update({ channel: "C1", ts: posted.ts as string, text: "x", blocks: [section("")] }))).error).toBe("invalid_blocks");
    expect((await refusal(client.chat.postMessage({ channel: "C1", text: "" }))).error).toBe("no_text");
  });

  it("a modal over its limits answers invalid_arguments (title over 24, 101 blocks)", async () => {
    const trigger_id = slack.issueTriggerId();
    const view = { type: "modal" as const, title: { type: "plain_text" as const, text: "t".repeat(25) }, blocks: Array.from({ length: 101 }, () => section("x")) };
    const res = await refusal(client.views.open({ trigger_id, view }));
    expect(res.error).toBe("invalid_arguments");
    expect(res.data.response_metadata.messages).toEqual(["[ERROR] must be less than 25 characters [json-pointer:/view/title/text]", "[ERROR] no more than 100 items allowed [json-pointer:/view/blocks]"]);
  });
});

describe("Slack fake: usergroups.list", () => {
  it("enabled groups only unless include_disabled; user_count (a string) and users only when asked; usergroups:read; the free plan has none", async () => {
    slack.directory.addUsergroup({ id: "SHR", handle: "hr", name: "人事", users: ["U1", "U2"] });
    slack.directory.addUsergroup({ id: "SOLD", handle: "old", name: "旧", users: [], disabled: true });
    const plain = await client.usergroups.list({});
    expect(plain.usergroups?.map((g) => [g.id, g.date_delete])).toEqual([["SHR", 0]]);
    expect(plain.usergroups?.[0]).not.toHaveProperty("user_count");
    expect(plain.usergroups?.[0]).not.toHaveProperty("users");
    const all = await client.usergroups.list({ include_disabled: true, include_count: true, include_users: true });
    expect(all.usergroups?.map((g) => g.id).sort()).toEqual(["SHR", "SOLD"]);
    expect(all.usergroups?.find((g) => g.id === "SHR")).toMatchObject({ user_count: "2", users: ["U1", "U2"], team_id: "T0001" });
    expect(all.usergroups?.find((g) => g.id === "SOLD")?.date_delete).toBeGreaterThan(0);
    slack.addBotToken("xoxb-no-groups", { scopes: ["chat:write"] });
    expect(await refusal(createWebClient("xoxb-no-groups", { SLACK_API_URL: slack.url }).usergroups.list({}))).toMatchObject({ error: "missing_scope", data: { needed: "usergroups:read" } });
    slack.directory.usergroupsUnavailable = true;
    expect((await refusal(client.usergroups.list({}))).error).toBe("plan_upgrade_required");
    expect((await refusal(client.usergroups.users.list({ usergroup: "SHR" }))).error).toBe("plan_upgrade_required");
  });
});

describe("Slack fake: a modal's selects and number inputs are checked as Block Kit does", () => {
  const input = (element: Record<string, unknown>) => ({ type: "modal" as const, title: { type: "plain_text" as const, text: "t" }, submit: { type: "plain_text" as const, text: "保存" }, blocks: [{ type: "input", block_id: "b", label: { type: "plain_text", text: "l" }, element: { action_id: "a", ...element } }] });
  const opt = (value: string, text = value) => ({ text: { type: "plain_text", text }, value });
  const open = (element: Record<string, unknown>) => client.views.open({ trigger_id: slack.issueTriggerId(), view: input(element) as never });

  it("a multi_static_select: 1 to 100 options, initial options among them; a number_input names is_decimal_allowed", async () => {
    expect((await open({ type: "multi_static_select", options: [opt("S1"), opt("S2")], initial_options: [opt("S2")] })).ok).toBe(true);
    expect((await refusal(open({ type: "multi_static_select", options: [opt("S1")], initial_options: [opt("S9")] }))).data.response_metadata.messages.join()).toContain("must match one of the provided options");
    expect((await refusal(open({ type: "multi_static_select", options: [] }))).error).toBe("invalid_arguments");
    expect((await refusal(open({ type: "multi_static_select", options: Array.from({ length: 101 }, (_, i) => opt(`S${i}`)) }))).data.response_metadata.messages.join()).toContain("no more than 100 items allowed");
    expect((await refusal(open({ type: "checkboxes", options: [opt("x", "a".repeat(76))] }))).data.response_metadata.messages.join()).toContain("must be less than 76 characters");
    expect((await open({ type: "number_input", is_decimal_allowed: false, min_value: "0", initial_value: "1000000" })).ok).toBe(true);
    expect((await refusal(open({ type: "number_input", initial_value: "1" }))).data.response_metadata.messages.join()).toContain("missing required field: is_decimal_allowed");
    expect((await refusal(open({ type: "number_input", is_decimal_allowed: false, initial_value: "1.5" }))).data.response_metadata.messages.join()).toContain("must be a valid number");
  });
});

describe("Slack fake: trigger_id", () => {
  const modal = { type: "modal" as const, title: { type: "plain_text" as const, text: "却下の理由" }, blocks: [section("x")] };

  it("expires 3 s after the interaction", async () => {
    const late = slack.issueTriggerId();
    now += 3001;
    expect((await refusal(client.views.open({ trigger_id: late, view: modal }))).error).toBe("expired_trigger_id");
    const inTime = slack.issueTriggerId();
    now += 2999;
    expect((await client.views.open({ trigger_id: inTime, view: modal })).ok).toBe(true);
  });

  it("opens one modal, and one Slack never issued opens none", async () => {
    const trigger_id = slack.issueTriggerId();
    await client.views.open({ trigger_id, view: modal });
    expect((await refusal(client.views.open({ trigger_id, view: modal }))).error).toBe("exchanged_trigger_id");
    expect((await refusal(client.views.open({ trigger_id: "12345.678.abc", view: modal }))).error).toBe("invalid_trigger_id");
  });
});

describe("Slack fake: chat.update rate", () => {
  it("past its rate answers HTTP 429 ratelimited with Retry-After; another channel is not affected", async () => {
    slack.setRateLimit("chat.update", { limit: 3, windowMs: 10_000, per: "channel" });
    const a = await client.chat.postMessage({ channel: "C1", text: "card" });
    const b = await client.chat.postMessage({ channel: "C2", text: "card" });
    for (let i = 0; i < 3; i++) await client.chat.update({ channel: "C1", ts: a.ts as string, text: `v${i}` });
    const err = (await client.chat.update({ channel: "C1", ts: a.ts as string, text: "v4" }).catch((e: unknown) => e)) as { code: string; retryAfter: number };
    expect(err.code).toBe("slack_webapi_rate_limited_error");
    expect(err.retryAfter).toBe(10);
    expect((await client.chat.update({ channel: "C2", ts: b.ts as string, text: "v1" })).ok).toBe(true);
    now += 10_000;
    expect((await client.chat.update({ channel: "C1", ts: a.ts as string, text: "v5" })).ok).toBe(true);
  });

  it("by default: Tier 3, 50 a minute per channel", async () => {
    const a = await client.chat.postMessage({ channel: "C1", text: "card" });
    for (let i = 0; i < 50; i++) await client.chat.update({ channel: "C1", ts: a.ts as string, text: `v${i}` });
    expect((await client.chat.update({ channel: "C1", ts: a.ts as string, text: "v51" }).catch((e: { code: string }) => e.code))).toBe("slack_webapi_rate_limited_error");
  });
});

describe("Slack fake: messages", () => {
  it("only the bot's own, existing messages can be updated or deleted", async () => {
    const typed = slack.workspace.addUserMessage({ channel: "C1", user: "U1", text: "依頼" });
    expect((await refusal(client.chat.update({ channel: "C1", ts: typed.ts, text: "x" }))).error).toBe("cant_update_message");
    expect((await refusal(client.chat.update({ channel: "C1", ts: "1.000001", text: "x" }))).error).toBe("message_not_found");
    expect((await refusal(client.chat.delete({ channel: "C1", ts: typed.ts }))).error).toBe("cant_delete_message");
    const reply = await client.chat.postMessage({ channel: "C1", thread_ts: typed.ts, text: "了解しました" });
    expect(slack.workspace.thread(typed.ts).map((m) => m.text)).toEqual(["了解しました"]);
    await client.chat.delete({ channel: "C1", ts: reply.ts as string });
    expect(slack.workspace.thread(typed.ts)).toEqual([]);
  });

  it("oauth.v2.access exchanges a code once, with the app's client credentials, for a token Slack then accepts", async () => {
    const code = slack.issueOAuthCode();
    const bare = new WebClient(undefined, { slackApiUrl: slack.url });
    expect((await refusal(bare.oauth.v2.access({ client_id: "fake-slack-client-id", client_secret: "wrong", code }))).error).toBe("invalid_client_id");
    const granted = await bare.oauth.v2.access({ client_id: "fake-slack-client-id", client_secret: "fake-slack-client-secret", code });
    expect((await refusal(bare.oauth.v2.access({ client_id: "fake-slack-client-id", client_secret: "fake-slack-client-secret", code }))).error).toBe("invalid_code");
    expect((await createWebClient(granted.access_token, { SLACK_API_URL: slack.url }).auth.test()).team_id).toBe("T0001");
  });
});

describe("the app manifest", () => {
  it("validates against Slack's manifest schema, filled as fill-manifest.mjs fills it", () => {
    const dir = mkdtempSync(join(tmpdir(), "manifest-"));
    const outputs = join(dir, "outputs.json");
    writeFileSync(outputs, JSON.stringify({ Stack: { SlackEventsUrl: "https://abc.lambda-url.ap-northeast-1.on.aws/slack/events", SlackOAuthRedirectUrl: "https://abc.lambda-url.ap-northeast-1.on.aws/slack/oauth_redirect" } }));
    const filled = parseYaml(execFileSync("node", ["scripts/fill-manifest.mjs", "--outputs", outputs], { encoding: "utf8" })) as Record<string, any>;
    const schema = JSON.parse(readFileSync("dev/fakes/slack/manifest-schema/manifest.schema.1.0.0.json", "utf8")) as object;
    const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;
    const validate = addFormats(new Ajv({ allErrors: true, strict: false })).compile(schema);
    expect(validate(filled) ? [] : validate.errors).toEqual([]);
    // The schema is the judge: a setting it does not know is refused.
    expect(validate({ ...filled, settings: { ...filled.settings, made_up_setting: true } })).toBe(false);
    expect(validate({ ...filled, display_information: { ...filled.display_information, name: "x".repeat(36) } })).toBe(false);
  });
});

describe("Slack fake: files upload v2 (files.uploadV2 of the installed @slack/web-api)", () => {
  it("getUploadURLExternal → the bytes to the upload URL → completeUploadExternal shares the file as a reply in the thread", async () => {
    const parent = await client.chat.postMessage({ channel: "C1", text: "依頼" });
    const done = await client.filesUploadV2({ channel_id: "C1", thread_ts: parent.ts!, filename: "deals.csv", title: "取引", content: "\uFEFF\"ID\"\r\n\"1\"\r\n", initial_comment: "取引 1 件（CSV）" });
    const id = (done.files as { files: { id: string }[] }[])[0]!.files[0]!.id;
    expect(slack.uploads.files.get(id)).toMatchObject({ filename: "deals.csv", title: "取引", state: "shared" });
    expect(slack.uploads.files.get(id)?.content?.toString("utf8")).toBe("\uFEFF\"ID\"\r\n\"1\"\r\n");
    expect(slack.workspace.messages.at(-1)).toMatchObject({ channel: "C1", threadTs: parent.ts, text: "取引 1 件（CSV）", files: [{ id, name: "deals.csv", title: "取引" }] });
  });

  it("refuses what Slack refuses: no length, a file never uploaded, a reply's ts as thread_ts, bytes that differ from the length", async () => {
    expect((await refusal(client.files.getUploadURLExternal({ filename: "a.csv", length: 0 }))).error).toBe("invalid_arguments");
    const { file_id } = await client.files.getUploadURLExternal({ filename: "a.csv", length: 3 });
    expect((await refusal(client.files.completeUploadExternal({ files: [{ id: file_id! }], channel_id: "C1" }))).error).toBe("file_not_found");
    const parent = await client.chat.postMessage({ channel: "C1", text: "依頼" });
    const reply = await client.chat.postMessage({ channel: "C1", text: "返信", thread_ts: parent.ts! });
    expect((await refusal(client.filesUploadV2({ channel_id: "C1", thread_ts: reply.ts!, filename: "b.csv", content: "abc" }))).error).toBe("invalid_thread_ts");
    const { upload_url } = await client.files.getUploadURLExternal({ filename: "c.csv", length: 10 });
    const form = new FormData();
    form.append("body", new Blob([new Uint8Array(Buffer.from("abc"))]), "c.csv");
    expect((await fetch(upload_url!, { method: "POST", body: form })).status).toBe(400);
  });
});
