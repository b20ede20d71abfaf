import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalStack, type LocalStack } from "../../dev/local/local-stack";
import { ExecutionCardTexts, NotARequestMessages } from "../../lib/messages/ja";
import { waitFor } from "./support";

/**
 * Issue 16 in the sandbox (`npm run dev`, no credentials): the 完了 card says what changed in freee in words — the
 * preview's before → after of each write the MCP server recorded done, linked to the record in freee — and shows
 * what a read returned; 「こんにちは」 gets a short reply and no plan. Driven through the page's API, as a user.
 */
interface PageMessage {
  ts: string;
  threadTs?: string;
  text: string;
  blocks?: { type: string; block_id?: string; text?: { text: string }; elements?: { type: string; action_id?: string; value?: string }[] }[];
}

const dataDir = mkdtempSync(join(tmpdir(), "sandbox-card-"));
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

const messages = async (): Promise<PageMessage[]> => ((await (await fetch(`${stack.url}/sandbox/api/state`)).json()) as { messages: PageMessage[] }).messages;
const post = async (path: string, body: unknown) => {
  const res = await fetch(`${stack.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return (await res.json()) as Record<string, unknown>;
};
const sections = (m: PageMessage) => (m.blocks ?? []).flatMap((b) => (b.type === "section" && b.text !== undefined ? [b.text.text] : []));

async function approve(threadTs: string, kind: "prompt" | "process") {
  const found = await waitFor(`${kind} approve button`, async () => {
    for (const m of (await messages()).filter((x) => x.threadTs === threadTs)) {
      for (const b of m.blocks ?? []) {
        const el = (b.elements ?? []).find((e) => e.action_id === "approve_version" && e.value !== undefined && (JSON.parse(e.value) as { kind?: string }).kind === kind);
        if (el !== undefined) return { action_id: "approve_version", block_id: b.block_id, value: el.value, ts: m.ts };
      }
    }
    return undefined;
  }, 30_000);
  await post("/sandbox/api/action", found);
}

/** Send the request, approve the plan and the Process, wait for 完了; the 完了 card's sections and the task's history. */
async function runToCompletion(text: string) {
  const ts = (await post("/sandbox/api/message", { text })).ts as string;
  await approve(ts, "prompt");
  await approve(ts, "process");
  const card = await waitFor("完了 on the page", async () => (await messages()).find((m) => m.threadTs === ts && m.text === "実行 #1: 完了"), 30_000);
  return { card: sections(card), history: await stack.store.loadHistory(`T0SANDBOX-CSANDBOX-${ts.replace(".", "_")}`) };
}

describe("sandbox: the Execution card says what happened", { timeout: 90_000 }, () => {
  it("a pay change: 完了 with the before → after of the write, linked to the employee in freee, every step ✓", async () => {
    const { card, history } = await runToCompletion("来月から山田さんの基本給を30万円に変更して");
    const write = history.processes[0]?.steps?.find((s) => s.tool === "freee_hr_update_basic_pay_rule");
    const preview = history.processes[0]?.preview?.steps.find((p) => p.stepId === write?.stepId);
    expect(preview?.summary).toContain("→");
    const changed = card.find((t) => t.startsWith(`*${ExecutionCardTexts.changedHead}*`));
    expect(changed).toContain(`✓ ${preview?.summary}`);
    expect(changed).toContain(`<https://p.secure.freee.co.jp/employees/${String(write?.toolInput.employee_id)}|freee で開く>`);
    expect(changed).toContain(ExecutionCardTexts.nothingElse);
    expect(history.executions[0]?.writes).toMatchObject({ done: [write?.stepId], unknown: [] });
    const steps = card.find((t) => t.startsWith("*ステップ*"))!;
    expect(steps.split("\n").slice(1).every((line) => line.startsWith("✓"))).toBe(true);
  });

  it("a settled expense: the created deal is linked in freee by the id freee answered with", async () => {
    const { card, history } = await runToCompletion("タクシー代 5,500円を現金で支払済みの経費として登録して");
    const record = history.executions[0]?.writes?.records[0];
    expect(record?.kind).toBe("deal");
    expect(card.join("\n")).toContain(`<https://secure.freee.co.jp/deals#deal_id=${String(record?.id)}|freee で開く>`);
  });

  it("a read request: the result is shown as a table, and nothing was written", async () => {
    const { card } = await runToCompletion("今月の取引の一覧を確認して");
    const table = card.find((t) => /^\*\d+\. 取引（\d+ 件）\*/.test(t));
    expect(table).toContain("```\nID | ");
    expect(card.join("\n")).toContain(ExecutionCardTexts.noWrites);
  });

  it("「こんにちは」: a short reply in the thread, no plan, no buttons", async () => {
    const ts = (await post("/sandbox/api/message", { text: "こんにちは" })).ts as string;
    const reply = await waitFor("the reply", async () => (await messages()).find((m) => m.threadTs === ts && JSON.stringify(m.blocks ?? []).includes(NotARequestMessages.noTask)), 30_000);
    expect(reply.text).toMatch(/^こんにちは。/);
    await new Promise((r) => setTimeout(r, 300));
    const thread = (await messages()).filter((m) => m.threadTs === ts);
    expect(thread).toHaveLength(1);
    expect(JSON.stringify(thread)).not.toContain("approve_version");
  });
});
