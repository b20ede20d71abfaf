import { DescribeExecutionCommand, SendTaskSuccessCommand, SFNClient } from "@aws-sdk/client-sfn";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalStack, type LocalStack } from "../../dev/local/local-stack";
import { parseSteps } from "../../dev/fakes/anthropic/autoplay";
import { SANDBOX_COMPANY } from "../../dev/local/sandbox-fakes";
import { buildTaskMessage } from "../../lib/agent/agent-prompt";
import { ActionMessages } from "../../lib/actions";
import { waitFor } from "./support";

/**
 * `npm run dev` without any credentials: the sandbox page's API, the scripted model (L1–L3 and a Managed
 * Agents session that really calls the local freee MCP server) and the scripted freee company — a request
 * reaches 完了 driven only through /sandbox/api/*, exactly as the page does. Also: data survives a restart,
 * and the Step Functions facade answers as the AWS API does.
 */
interface PageMessage {
  ts: string;
  threadTs?: string;
  text: string;
  bot: boolean;
  ephemeral?: boolean;
  blocks?: { type: string; block_id?: string; elements?: { type: string; action_id?: string; value?: string; text?: { text: string } }[] }[];
}
interface PageState {
  labels: string[];
  messages: PageMessage[];
  openView: ({ id: string; callback_id: string } & Record<string, unknown>) | null;
}

const dataDir = mkdtempSync(join(tmpdir(), "sandbox-e2e-"));
const settings = { PATH: process.env.PATH, LOG_LEVEL: "SILENT", PORT: "0", DATA_DIR: dataDir, SANDBOX_STEP_DELAY_MS: "5", LOCAL_WAIT_MS: "30", LOCAL_RETRY_MS: "0", SANDBOX_SLACK_RATE_WINDOW_MS: "600" };
let stack: LocalStack;

beforeAll(async () => {
  process.env.LOG_LEVEL = "SILENT";
  stack = await startLocalStack(settings);
}, 60_000);
afterAll(async () => {
  await stack?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const state = async (): Promise<PageState> => (await fetch(`${stack.url}/sandbox/api/state`)).json() as Promise<PageState>;
const post = async (path: string, body: unknown) => {
  const res = await fetch(`${stack.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** Click the button the page shows (its data-action payload: action_id, block_id, value, ts). */
async function clickButton(threadTs: string, actionId: string, match: (value: Record<string, unknown>) => boolean) {
  const found = await waitFor(`button ${actionId}`, async () => {
    for (const m of (await state()).messages.filter((x) => x.threadTs === threadTs)) {
      for (const b of m.blocks ?? []) {
        const el = (b.elements ?? []).find((e) => e.action_id === actionId && e.value !== undefined && match(JSON.parse(e.value) as Record<string, unknown>));
        if (el !== undefined) return { action_id: actionId, block_id: b.block_id, value: el.value, ts: m.ts, text: el.text?.text };
      }
    }
    return undefined;
  });
  return post("/sandbox/api/action", found);
}

describe("sandbox (npm run dev without credentials)", { timeout: 60_000 }, () => {
  it("serves the page, labels the scripted parts, and has the Function URL routes on the same server", async () => {
    const page = await fetch(`${stack.url}/sandbox`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("/sandbox/page.js");
    expect(await (await fetch(`${stack.url}/sandbox/page.js`)).text()).toContain("/sandbox/api/state");
    expect(stack.mode).toEqual({ slack: "sandbox", model: "scripted", freee: "scripted" });
    expect((await state()).labels).toEqual(["Slack: サンドボックス（ローカル記録）", "モデル: スクリプト（ANTHROPIC_API_KEY 未設定）", "freee: スクリプトの会社（サンドボックス株式会社）"]);
    // Unsigned Slack requests are refused by the real ingress; MCP without a bearer is refused by the MCP server.
    expect((await fetch(`${stack.url}/slack/events`, { method: "POST", body: "{}" })).status).toBe(401);
    expect((await fetch(`${stack.url}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(401);
    // Single-workspace mode: no install flow.
    expect((await fetch(`${stack.url}/slack/install`)).status).toBe(404);
  });

  it("a request reaches 完了 through the page's API: reject with the modal (empty reason refused), approve, run against freee via MCP", async () => {
    const sent = await post("/sandbox/api/message", { text: "来月から山田さんの基本給を30万円に変更して" });
    expect(sent.status).toBe(200);
    const ts = sent.body.ts as string;

    // 却下 → the modal views.open showed appears in the page's state.
    await clickButton(ts, "reject_version", (v) => v.kind === "prompt" && v.version === 1);
    const view = await waitFor("the reason modal", async () => (await state()).openView ?? undefined);
    expect(view.callback_id).toBe("reject_reason");
    const empty = await post("/sandbox/api/view_submission", { viewId: view.id, values: { reason: { reason_input: { type: "plain_text_input", value: "" } } } });
    expect(empty.body).toEqual({ response_action: "errors", errors: { reason: ActionMessages.reasonRequired } });
    expect((await state()).openView?.id).toBe(view.id); // still open, as in Slack
    const submitted = await post("/sandbox/api/view_submission", { viewId: view.id, values: { reason: { reason_input: { type: "plain_text_input", value: "適用月を明記して" } } } });
    expect(submitted.status).toBe(200);
    expect((await state()).openView).toBeNull();

    await clickButton(ts, "approve_version", (v) => v.kind === "prompt" && v.version === 2);
    await clickButton(ts, "approve_version", (v) => v.kind === "process" && v.version === 1);
    const done = await waitFor("完了 on the page", async () => (await state()).messages.find((m) => m.threadTs === ts && m.text.startsWith("実行 #") && m.text.includes("完了")), 30_000);
    expect(done.text).toBe("実行 #1: 完了");

    // The scripted session really called the freee MCP server: the scripted company's data changed, audited.
    const yamada = stack.freee!.company(SANDBOX_COMPANY.id).employees.find((e) => e.id === 1)!;
    expect(yamada.payRules.at(-1)?.pay_amount).toBe(300_000);
    const taskId = `T0SANDBOX-CSANDBOX-${ts.replace(".", "_")}`;
    const h = await stack.store.loadHistory(taskId);
    expect(h.task.status).toBe("completed");
    expect(h.prompts.map((p) => p.status)).toEqual(["rejected", "approved"]);
    expect(h.audit.filter((a) => a.action === "freee.tool_completed").map((a) => a.details.tool)).toEqual([
      "freee_hr_list_employees",
      "freee_hr_update_basic_pay_rule",
    ]);
  }, 60_000);

  it("an accounting request takes the scripted company's books path (read-only tools) to 完了", async () => {
    const sent = await post("/sandbox/api/message", { text: "今月の取引の一覧を確認して" });
    const ts = sent.body.ts as string;
    await clickButton(ts, "approve_version", (v) => v.kind === "prompt");
    await clickButton(ts, "approve_version", (v) => v.kind === "process");
    await waitFor("完了 on the page", async () => (await state()).messages.find((m) => m.threadTs === ts && m.text === "実行 #1: 完了"), 30_000);
    const h = await stack.store.loadHistory(`T0SANDBOX-CSANDBOX-${ts.replace(".", "_")}`);
    expect(h.processes[0]?.steps?.map((step) => step.tool)).toEqual(["freee_accounting_list_account_items", "freee_accounting_list_deals"]);
    expect(h.audit.filter((a) => a.action === "freee.tool_completed")).toHaveLength(2);
  }, 60_000);

  it("the Step Functions facade speaks the AWS JSON protocol to the real SFNClient (DescribeExecution, TaskDoesNotExist)", async () => {
    const sfn = new SFNClient({ endpoint: stack.env.SFN_ENDPOINT, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
    const execution = [...stack.local.executions.values()].find((x) => x.machine === "TaskPipeline")!;
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

  it("a restart keeps the tasks (dynalite under DATA_DIR) and the local secrets", async () => {
    const before = (await stack.store.loadHistory([...stack.local.executions.values()].find((x) => x.machine === "TaskPipeline")!.name)).task;
    const secret = stack.env.MCP_BEARER_SECRET;
    await stack.close();
    stack = await startLocalStack(settings);
    const after = await stack.store.loadHistory(before.taskId);
    expect(after.task.status).toBe("completed");
    expect(stack.env.MCP_BEARER_SECRET).toBe(secret);
  }, 60_000);
});
