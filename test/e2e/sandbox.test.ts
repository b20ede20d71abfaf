import { DescribeExecutionCommand, SendTaskSuccessCommand, SFNClient } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSteps } from "../../dev/fakes/anthropic/autoplay";
import { SANDBOX_COMPANY } from "../../dev/local/sandbox-fakes";
import { buildTaskMessage } from "../../lib/model/agent/agent-prompt";
import { ActionMessages } from "../../lib/ingress/actions";
import { SandboxPage } from "./sandbox-page";
import { waitFor } from "./support";

/**
 * `npm run dev` without any credentials: the sandbox page's API, the scripted model (L1–L3 and a Managed
 * Agents session that really calls the local freee MCP server) and the scripted freee company — a request
 * reaches 完了 driven only through /sandbox/api/*, exactly as the page does. Also: data survives a restart,
 * and the Step Functions facade answers as the AWS API does.
 */
let page: SandboxPage;
beforeAll(async () => {
  page = await SandboxPage.start({}, { ownDynamo: true });
}, 180_000);
afterAll(async () => page?.close());

const state = () => page.state();
const post = (path: string, body: unknown) => page.post(path, body);

describe("sandbox (npm run dev without credentials)", { timeout: 60_000 }, () => {
  it("serves the page, labels the scripted parts, and has the Function URL routes on the same server", async () => {
    const html = await fetch(`${page.stack.url}/sandbox`);
    expect(html.status).toBe(200);
    expect(await html.text()).toContain("/sandbox/page.js");
    expect(await (await fetch(`${page.stack.url}/sandbox/page.js`)).text()).toContain("/sandbox/api/state");
    expect(page.stack.mode).toEqual({ slack: "sandbox", model: "scripted", freee: "scripted" });
    expect((await state()).labels).toEqual(["Slack: サンドボックス（ローカル記録）", "モデル: スクリプト（ANTHROPIC_API_KEY 未設定）", "freee: スクリプトの会社（サンドボックス株式会社）"]);
    // Unsigned Slack requests are refused by the real ingress; MCP without a bearer is refused by the MCP server.
    expect((await fetch(`${page.stack.url}/slack/events`, { method: "POST", body: "{}" })).status).toBe(401);
    expect((await fetch(`${page.stack.url}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(401);
    // Single-workspace mode: no install flow.
    expect((await fetch(`${page.stack.url}/slack/install`)).status).toBe(404);
  });

  it("a request reaches 完了 through the page's API: reject with the modal (empty reason refused), approve, run against freee via MCP", async () => {
    const sent = await post("/sandbox/api/message", { text: "来月から山田さんの基本給を30万円に変更して" });
    expect(sent.status).toBe(200);
    const ts = sent.body.ts as string;

    // 却下 → the modal views.open showed appears in the page's state.
    await page.click(ts, "reject_version", (v) => v.kind === "prompt" && v.version === 1);
    const view = await waitFor("the reason modal", async () => (await state()).openView ?? undefined);
    expect(view.callback_id).toBe("reject_reason");
    const empty = await post("/sandbox/api/view_submission", { viewId: view.id, values: { reason: { reason_input: { type: "plain_text_input", value: "" } } } });
    expect(empty.body).toEqual({ response_action: "errors", errors: { reason: ActionMessages.reasonRequired } });
    expect((await state()).openView?.id).toBe(view.id); // still open, as in Slack
    const submitted = await post("/sandbox/api/view_submission", { viewId: view.id, values: { reason: { reason_input: { type: "plain_text_input", value: "適用月を明記して" } } } });
    expect(submitted.status).toBe(200);
    expect((await state()).openView).toBeNull();

    await page.click(ts, "approve_version", (v) => v.kind === "prompt" && v.version === 2);
    await page.click(ts, "approve_version", (v) => v.kind === "process" && v.version === 1);
    const done = await waitFor("完了 on the page", async () => (await page.thread(ts)).find((m) => m.text.startsWith("実行 #") && m.text.includes("完了")));
    expect(done.text).toBe("実行 #1: 完了");

    // The scripted session really called the freee MCP server: the scripted company's data changed, audited.
    const yamada = page.stack.freee!.company(SANDBOX_COMPANY.id).employees.find((e) => e.id === 1)!;
    expect(yamada.payRules.at(-1)?.pay_amount).toBe(300_000);
    const h = await page.history(ts);
    expect(h.task.status).toBe("completed");
    expect(h.prompts.map((p) => p.status)).toEqual(["rejected", "approved"]);
    expect(h.audit.filter((a) => a.action === "freee.tool_completed").map((a) => a.details.tool)).toEqual([
      "freee_hr_list_employees",
      "freee_hr_update_basic_pay_rule",
    ]);
  }, 60_000);

  it("「今月の取引一覧を見せて」: one read of this month's deals (JST), said in words, to 完了 on the 実行方針 approval alone", async () => {
    const sent = await post("/sandbox/api/message", { text: "今月の取引一覧を見せて" });
    const ts = sent.body.ts as string;
    await page.click(ts, "approve_version", (v) => v.kind === "prompt");
    const jst = new Date(Date.now() + 9 * 3600_000);
    const [year, month] = [jst.getUTCFullYear(), jst.getUTCMonth() + 1];
    const pad = (n: number) => String(n).padStart(2, "0");
    const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
    await waitFor("the read said in words", async () => (await page.thread(ts)).find((m) => JSON.stringify(m.blocks ?? []).includes(`${year}年${month}月の取引（最大 20 件）`)));
    // The approval policy lets accounting reads run on the 実行方針 approval: no Process click.
    await waitFor("完了 on the page", async () => (await page.thread(ts)).find((m) => m.text === "実行 #1: 完了"));
    const h = await page.history(ts);
    // No unrequested extra read (an account-item list): the one read the request names, filtered to this month.
    expect(h.processes[0]?.steps?.map((step) => [step.tool, step.toolInput])).toEqual([
      ["freee_accounting_list_deals", { start_issue_date: `${year}-${pad(month)}-01`, end_issue_date: `${year}-${pad(month)}-${pad(lastDay)}`, limit: 20 }],
    ]);
    expect(h.audit.filter((a) => a.action === "freee.tool_completed")).toHaveLength(1);
  }, 60_000);

  it("the Step Functions facade speaks the AWS JSON protocol to the real SFNClient (DescribeExecution, TaskDoesNotExist)", async () => {
    const sfn = new SFNClient({ endpoint: page.stack.env.SFN_ENDPOINT, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
    const execution = [...page.stack.local.executions.values()].find((x) => x.machine === "TaskPipeline")!;
    const described = await sfn.send(new DescribeExecutionCommand({ executionArn: execution.executionArn }));
    expect(described.status).toBe("SUCCEEDED");
    expect(JSON.parse(described.input ?? "{}")).toEqual(execution.input);
    await expect(sfn.send(new SendTaskSuccessCommand({ taskToken: "no-such-token", output: "{}" }))).rejects.toMatchObject({ name: "TaskDoesNotExist" });
    sfn.destroy();
  });

  it("the scripted agent reads the steps back from the session's task message", () => {
    const text = buildTaskMessage([
      { stepId: "s1", order: 1, tool: "freee_hr_list_employees", toolInput: { year: 2026, month: 12 } },
      { stepId: "s2", order: 2, tool: "agent_decide", toolInput: { instruction: "特定する" } },
    ]);
    expect(parseSteps(text)).toEqual([
      { stepId: "s1", tool: "freee_hr_list_employees", input: { year: 2026, month: 12 } },
      { stepId: "s2", tool: "agent_decide", input: { instruction: "特定する" } },
    ]);
  });

  it("a restart keeps the tasks (DynamoDB Local under DATA_DIR, stopped and started again) and the local secrets", async () => {
    const before = (await page.stack.store.loadHistory([...page.stack.local.executions.values()].find((x) => x.machine === "TaskPipeline")!.name)).task;
    const secret = page.stack.env.MCP_BEARER_SECRET;
    await page.restart();
    const after = await page.stack.store.loadHistory(before.taskId);
    expect(after.task.status).toBe("completed");
    expect(page.stack.env.MCP_BEARER_SECRET).toBe(secret);
  }, 60_000);
});
