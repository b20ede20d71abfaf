import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalStack, type LocalStack } from "../../dev/local/local-stack";
import type { TaskHistory } from "../../lib/store/task-store";
import { testDynamoEndpoint, uniqueTableName } from "../support/dynamo";
import { waitFor } from "./support";

/**
 * The sandbox page as a test drives it: `npm run dev` without credentials (startLocalStack), reached only
 * through the page's own API (/sandbox/api/*), the calls page.js makes. The waits are shrunk; the limits stay
 * the product's. One stack per test file, with a temporary DATA_DIR (the local secrets) that a restart keeps, and
 * its own table on the run's DynamoDB Local; `{ ownDynamo: true }`: a DynamoDB Local of its own with its data
 * under DATA_DIR, as `npm run dev` runs it (a restart stops and starts that one too).
 */
export interface PageBlock {
  type: string;
  block_id?: string;
  text?: { text: string };
  elements?: { type: string; action_id?: string; value?: string; text?: { text: string } }[];
}
export interface PageMessage {
  ts: string;
  threadTs?: string;
  text: string;
  bot: boolean;
  ephemeral?: boolean;
  blocks?: PageBlock[];
}
export interface PageState {
  labels: string[];
  messages: PageMessage[];
  names: Record<string, string>;
  home: { blocks: unknown[] } | null;
  faults: { armed: { id: string; hits: number } | null } | null;
  openView: ({ id: string; callback_id: string } & Record<string, unknown>) | null;
}
/** What the page sends for a button: its data-action payload. */
export interface PageButton {
  action_id: string;
  block_id?: string;
  value: string;
  ts: string;
  text?: string;
}

export const SANDBOX_SETTINGS = {
  LOG_LEVEL: "SILENT",
  PORT: "0",
  SANDBOX_STEP_DELAY_MS: "5",
  LOCAL_WAIT_MS: "30",
  LOCAL_RETRY_MS: "0",
  SANDBOX_SLACK_RATE_WINDOW_MS: "600",
  // The page's user approves their own plans here; the approval policy's own tests start with the defaults.
  LOCAL_APPROVAL_POLICY: "one_person",
} as const;

export class SandboxPage {
  private constructor(
    public stack: LocalStack,
    private readonly settings: Record<string, string | undefined>,
    private readonly dataDir: string,
  ) {}

  /** Start the dev stack with the sandbox's shrunk waits, plus `env` (which may override them). */
  static async start(env: Record<string, string> = {}, options: { ownDynamo?: boolean } = {}): Promise<SandboxPage> {
    process.env.LOG_LEVEL = "SILENT";
    const dataDir = mkdtempSync(join(tmpdir(), "sandbox-page-"));
    const dynamo = options.ownDynamo === true ? {} : { DYNAMODB_ENDPOINT: testDynamoEndpoint(), TABLE_NAME: uniqueTableName("sandbox") };
    const settings = { PATH: process.env.PATH, ...SANDBOX_SETTINGS, DATA_DIR: dataDir, ...dynamo, ...env };
    return new SandboxPage(await startLocalStack(settings), settings, dataDir);
  }

  /** Stop the stack and start it again on the same DATA_DIR (what a developer's Ctrl-C and `npm run dev` do). */
  async restart(): Promise<void> {
    await this.stack.close();
    this.stack = await startLocalStack(this.settings);
  }

  async close(): Promise<void> {
    await this.stack.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** What the page shows; `as`: to another of the sandbox's members (their ephemerals, their Home tab). */
  async state(as?: string): Promise<PageState> {
    return (await fetch(`${this.stack.url}/sandbox/api/state${as === undefined ? "" : `?as=${as}`}`)).json() as Promise<PageState>;
  }

  async messages(): Promise<PageMessage[]> {
    return (await this.state()).messages;
  }

  async thread(ts: string): Promise<PageMessage[]> {
    return (await this.messages()).filter((m) => m.threadTs === ts);
  }

  async post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${this.stack.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  /** Type a message in the sandbox channel (with a file, as Slack's file_share): its ts, which is the thread's. */
  async send(text: string, file?: { name: string; mimetype: string; base64: string }, channel?: string): Promise<string> {
    const sent = await this.post("/sandbox/api/message", { text, ...(file === undefined ? {} : { file }), ...(channel === undefined ? {} : { channel }) });
    if (sent.status !== 200) throw new Error(`sandbox: the message was refused (${sent.status}): ${JSON.stringify(sent.body)}`);
    return sent.body.ts as string;
  }

  taskIdOf(ts: string): string {
    const channel = this.stack.slack?.workspace.message(ts)?.channel ?? "CSANDBOX";
    return `T0SANDBOX-${channel}-${ts.replace(".", "_")}`;
  }

  history(ts: string): Promise<TaskHistory> {
    return this.stack.store.loadHistory(this.taskIdOf(ts));
  }

  /**
   * Wait until the task of `ts` is at rest: it exists, none of its state machine executions is running, and the
   * reconciler has nothing left to do. A test that shows that something does not happen asserts after this.
   */
  async settled(ts: string): Promise<void> {
    const taskId = this.taskIdOf(ts);
    await waitFor(`task ${taskId} at rest`, async () => {
      const mine = [...this.stack.local.executions.values()].filter((x) => x.name === taskId || x.name.startsWith(`${taskId}-`));
      return (await this.stack.store.getTask(taskId)) !== undefined && mine.length > 0 && mine.every((x) => x.status !== "RUNNING");
    });
    await this.stack.reconciler.idle();
  }

  /** Wait until the thread shows a button `actionId` whose value matches. */
  button(ts: string, actionId: string, match: (value: Record<string, unknown>) => boolean = () => true): Promise<PageButton> {
    return waitFor(`button ${actionId}`, async () => {
      for (const m of await this.thread(ts)) {
        for (const b of m.blocks ?? []) {
          const el = (b.elements ?? []).find((e) => e.action_id === actionId && e.value !== undefined && match(JSON.parse(e.value) as Record<string, unknown>));
          if (el?.value !== undefined) return { action_id: actionId, ...(b.block_id === undefined ? {} : { block_id: b.block_id }), value: el.value, ts: m.ts, ...(el.text === undefined ? {} : { text: el.text.text }) };
        }
      }
      return undefined;
    });
  }

  /** Click a button the page shows, as page.js does; `as`: acting as another of the sandbox's members. */
  async click(ts: string, actionId: string, match?: (value: Record<string, unknown>) => boolean, as?: string): Promise<{ status: number; body: Record<string, unknown> }> {
    return this.post("/sandbox/api/action", { ...(await this.button(ts, actionId, match)), ...(as === undefined ? {} : { as }) });
  }

  approve(ts: string, kind: "prompt" | "process", version?: number, as?: string): Promise<{ status: number; body: Record<string, unknown> }> {
    return this.click(ts, "approve_version", (v) => v.kind === kind && (version === undefined || v.version === version), as);
  }

  /** Send the request, approve the plan and the Process, wait for run 1's 完了: that card and the task's history. */
  async runToCompletion(text: string, file?: { name: string; mimetype: string; base64: string }): Promise<{ ts: string; card: PageMessage; history: TaskHistory }> {
    const ts = await this.send(text, file);
    await this.approve(ts, "prompt");
    // A plan that only reads may run on the 実行方針 approval (the approval policy): then nothing waits for a click.
    const next = await waitFor("the Process waiting or approved by the policy", async () => {
      const process = (await this.history(ts)).processes.at(-1);
      return process?.status === "approved" ? "approved" : process?.status === "pending_approval" ? "waiting" : undefined;
    });
    if (next === "waiting") await this.approve(ts, "process");
    const card = await waitFor("完了 on the page", async () => (await this.thread(ts)).find((m) => m.text === "実行 #1: 完了"));
    return { ts, card, history: await this.history(ts) };
  }
}

/** The section texts of a message's blocks, in order. */
export function sections(m: PageMessage): string[] {
  return (m.blocks ?? []).flatMap((b) => (b.type === "section" && b.text !== undefined ? [b.text.text] : []));
}
