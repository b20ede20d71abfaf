import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ProcessStep, SlackFileRef } from "../../lib/core/domain/records";
import { SlackFileFetcher } from "../../lib/mcp/slack-files";
import { StaticBotTokenResolver } from "../../lib/slack-api/bot-token";
import { createWebClient } from "../../lib/slack-api/web-client";
import { UPLOAD_RECEIPT_TOOL } from "../../lib/freee/tools/summaries";
import { RECEIPT_FILES } from "../../dev/fakes/freee/routes-more";
import { FAKE_SLACK_BOT_TOKEN, FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { startMcpStack, text, type McpStack } from "./stack";

/**
 * Issue 18: a receipt shared with the request in Slack becomes the body of an approved file-box upload
 * (`POST /api/1/receipts`, multipart/form-data). The MCP server fetches the file from Slack only for that step —
 * files.info and the download with the workspace's bot token, from Slack's file host only — and sends it to the
 * strict freee fake, which reads the form as freee does. A file that is not the request's, or no longer the one
 * the approver saw, is never sent; a lost reply is not sent again.
 */
let stack: McpStack;
let slack: FakeSlack;
let origins: string[];
const READ_SCOPES_ONLY = "token-without-files-read";

beforeAll(async () => {
  slack = await new FakeSlack().start();
  slack.addBotToken(READ_SCOPES_ONLY, { scopes: ["chat:write", "users:read"] });
  origins = [new URL(slack.url).origin];
  let token = FAKE_SLACK_BOT_TOKEN;
  stack = await startMcpStack({
    slackFiles: {
      fetchFile: (thread, ref) =>
        new SlackFileFetcher({
          tokens: new StaticBotTokenResolver({ botToken: token }),
          clientFor: (t) => createWebClient(t, { SLACK_API_URL: slack.url }),
          fileOrigins: origins,
        }).fetchFile(thread, ref),
    },
  });
  useToken = (t) => (token = t);
});
afterAll(async () => {
  await stack.close();
  await slack.close();
});
let useToken: (token: string) => void;
beforeEach(() => {
  useToken(FAKE_SLACK_BOT_TOKEN);
  origins.splice(0, origins.length, new URL(slack.url).origin);
  slack.files.downloads = 0;
  stack.fake.clearFaults();
});

const PNG = new Uint8Array(Array.from({ length: 2048 }, (_, i) => (i * 31) % 256));
const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function share(name = "領収書-タクシー.png", bytes = PNG): SlackFileRef {
  const file = slack.files.share({ name, mimetype: "image/png", bytes, user: "U1" });
  return { fileId: String(file.id), name, size: Number(file.size), mimetype: "image/png" };
}

const upload = (ref: SlackFileRef, extra: Record<string, unknown> = {}) => ({ slack_file_id: ref.fileId, description: "タクシー代 12/3", receipt_metadatum_amount: 5250, receipt_metadatum_issue_date: "2026-12-03", ...extra });
const step = (toolInput: Record<string, unknown>): ProcessStep => ({ stepId: "s1", order: 1, tool: UPLOAD_RECEIPT_TOOL, effect: "write", toolInput });
const receipts = () => stack.fake.company(101).receipts;
const receiptPosts = () => stack.fake.apiRequests("/api/1/receipts").filter((r) => r.method === "POST").length;

async function running(input: Record<string, unknown>, attachments: SlackFileRef[]) {
  const { taskId, execution, bearer } = await stack.newExecution([step(input)], "running", attachments);
  return { taskId, execution, agent: await stack.agent(bearer) };
}

describe("an approved upload sends the request's file to freee's file box, once", () => {
  it("files.info + one download with the bot token, then multipart to freee: the receipt holds the same bytes and the approved fields", async () => {
    const ref = share();
    const { taskId, agent } = await running(upload(ref), [ref]);
    const before = receipts().length;
    const result = await agent.callTool({ name: UPLOAD_RECEIPT_TOOL, arguments: upload(ref) });
    expect(result.isError, text(result)).toBeFalsy();
    expect(receipts().length).toBe(before + 1);
    const receipt = receipts().at(-1)!;
    expect(receipt).toMatchObject({ description: "タクシー代 12/3", mime_type: "image/png", origin: "public_api", receipt_metadatum: { amount: 5250, issue_date: "2026-12-03" } });
    expect(RECEIPT_FILES.get(receipt)).toEqual({ name: "領収書-タクシー.png", type: "image/png", size: PNG.byteLength, sha256: digest(PNG) });
    expect(slack.files.downloads).toBe(1);
    const infos = slack.calls.filter((c) => c.method === "files.info");
    expect(infos.at(-1)).toMatchObject({ token: FAKE_SLACK_BOT_TOKEN, body: { file: ref.fileId } });
    const audit = await stack.audit(taskId);
    expect(audit.find((a) => a.action === "freee.tool_called")?.details).toMatchObject({ file: { name: ref.name, bytes: PNG.byteLength } });

    // The same approved call again: step_already_done, no second fetch, no second upload.
    const posts = receiptPosts();
    const again = await agent.callTool({ name: UPLOAD_RECEIPT_TOOL, arguments: upload(ref) });
    expect(again.isError).toBe(true);
    expect(text(again)).toContain("すでに完了");
    expect(receiptPosts()).toBe(posts);
    expect(slack.files.downloads).toBe(1);
  });
});

describe("a file that is not the approved one is never fetched or sent", () => {
  it("another file of the same message than the step approved: refused as input mismatch before Slack is asked", async () => {
    const approved = share("a.png");
    const other = share("b.png");
    const { agent } = await running(upload(approved), [approved, other]);
    const posts = receiptPosts();
    const result = await agent.callTool({ name: UPLOAD_RECEIPT_TOOL, arguments: upload(other) });
    expect(text(result)).toContain("承認済みの書き込みステップと一致しない");
    expect(slack.files.downloads).toBe(0);
    expect(receiptPosts()).toBe(posts);
  });

  it("an approved step naming a file the request did not share (a Process stored before plan checks): refused, nothing fetched", async () => {
    const stranger = share("someone-else.png");
    const { taskId, agent } = await running(upload(stranger), []);
    const result = await agent.callTool({ name: UPLOAD_RECEIPT_TOOL, arguments: upload(stranger) });
    expect(text(result)).toContain("依頼メッセージに添付されたものではありません");
    expect(slack.files.downloads).toBe(0);
    const refused = (await stack.audit(taskId)).find((a) => a.action === "freee.tool_refused");
    expect(refused?.details).toMatchObject({ reason: "attachment_unavailable", fileId: stranger.fileId });
  });

  it("a file changed in Slack since approval (other size): not sent; the step stays open, and the same call succeeds once the file is right again", async () => {
    const ref = share();
    const { agent } = await running(upload(ref), [ref]);
    slack.files.replaceBytes(ref.fileId, PNG.slice(0, 100));
    const posts = receiptPosts();
    const changed = await agent.callTool({ name: UPLOAD_RECEIPT_TOOL, arguments: upload(ref) });
    expect(text(changed)).toContain("承認されたときとファイルの内容");
    expect(receiptPosts()).toBe(posts);
    slack.files.replaceBytes(ref.fileId, PNG);
    const retried = await agent.callTool({ name: UPLOAD_RECEIPT_TOOL, arguments: upload(ref) });
    expect(retried.isError, text(retried)).toBeFalsy();
    expect(receiptPosts()).toBe(posts + 1);
  });

  it("a file deleted in Slack: not sent, the agent is told it is gone", async () => {
    const ref = share();
    const { agent } = await running(upload(ref), [ref]);
    slack.files.delete(ref.fileId);
    const posts = receiptPosts();
    expect(text(await agent.callTool({ name: UPLOAD_RECEIPT_TOOL, arguments: upload(ref) }))).toContain("削除された");
    expect(receiptPosts()).toBe(posts);
  });
});

describe("Slack's refusals and the bot token's reach", () => {
  it("an installation without files:read: missing_scope is a refusal that names the fix — not a freee connection fault on the run", async () => {
    const ref = share();
    const { taskId, execution, agent } = await running(upload(ref), [ref]);
    useToken(READ_SCOPES_ONLY);
    const result = await agent.callTool({ name: UPLOAD_RECEIPT_TOOL, arguments: upload(ref) });
    expect(text(result)).toContain("files:read");
    expect(slack.files.downloads).toBe(0);
    const run = await stack.store.getExecution(taskId, execution.executionNo);
    expect(run?.fault).toBeUndefined();
  });

  it("a download URL outside Slack's file host: the bot token is not sent there", async () => {
    const ref = share();
    const { agent } = await running(upload(ref), [ref]);
    origins.splice(0, origins.length, "https://files.slack.com");
    const posts = receiptPosts();
    expect(text(await agent.callTool({ name: UPLOAD_RECEIPT_TOOL, arguments: upload(ref) }))).toContain("Slack がファイルの取得を拒否しました");
    expect(slack.files.downloads).toBe(0);
    expect(receiptPosts()).toBe(posts);
  });
});

describe("a lost reply is not sent again", () => {
  it("freee stored the receipt but the answer was lost: the step ends unknown (a receipt has no field for our marker), one receipt, one POST", async () => {
    const ref = share();
    const { agent } = await running(upload(ref), [ref]);
    stack.fake.fail({ method: "POST", path: "/api/1/receipts" }, { lostReply: true }, 5);
    const before = receipts().length;
    const posts = receiptPosts();
    const first = await agent.callTool({ name: UPLOAD_RECEIPT_TOOL, arguments: upload(ref) });
    expect(first.isError).toBe(true);
    const second = await agent.callTool({ name: UPLOAD_RECEIPT_TOOL, arguments: upload(ref) });
    expect(second.isError).toBe(true);
    expect(receipts().length).toBe(before + 1);
    expect(receiptPosts()).toBe(posts + 1);
    expect(slack.files.downloads).toBe(1);
  });
});
