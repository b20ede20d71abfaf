import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { approve, reject } from "../../lib/ingress/actions";
import type { VersionKind } from "../../lib/core/domain/records";
import { jsonReply, messageReply, type ScriptedReply } from "../../dev/fakes/anthropic";
import { createFreeeMcpHandlerFromEnv } from "../../wiring/freee-mcp";
import { plainFunctionUrlHandler } from "../../lib/mcp/function-url";
import { serveFunctionUrl } from "../mcp/harness";
import { MCP_BEARER_SECRET, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { until } from "../support/until";

/** The task of an L1 structured output (parameters as entries, the structured-output shape). */
export const L1_REPLY = {
  title: "山田さんの基本給変更",
  intent: "山田さんの基本給を 2026 年 12 月から月額 30 万円に変更する。",
  domain: "hr",
  parameters: [
    { name: "employee_name", value: "山田" },
    { name: "new_basic_pay", value: 300000 },
  ],
  missingInformation: [],
};

export const PROMPT_TEXT = "目的: 山田さんの基本給を 2026 年 12 月分から月額 300,000 円に変更する。\n1. 従業員一覧を取得する。\n2. 基本給を更新する。";

const wireStep = (order: number, tool: string, toolInput: Record<string, unknown>) => ({ stepId: `s${order}`, order, tool, toolInput: JSON.stringify(toolInput) });
export const L3_STEPS = [
  wireStep(1, "freee_hr_list_employees", { year: 2026, month: 12 }),
  wireStep(2, "agent_decide", { instruction: "一覧から山田さんの従業員 ID を特定する", tools: ["freee_hr_get_employee"] }),
];

/** L1's whole answer: a request and its task, or a short reply to a message that asks for no work. */
export const l1Answer = (task: Record<string, unknown> = L1_REPLY): ScriptedReply => jsonReply({ kind: "request", reply: null, task });
export const l1NotARequest = (reply: string): ScriptedReply => jsonReply({ kind: "not_a_request", reply, task: null });
export const l1Ok = (): ScriptedReply => l1Answer();
export const l2Ok = (text = PROMPT_TEXT): ScriptedReply => messageReply(text);
export const l3Ok = (): ScriptedReply => jsonReply({ steps: L3_STEPS });

/** Wait for the approval of `kind` vN to be open, then decide it as the ingress does (lib/ingress/actions). */
export async function decide(h: PipelineHarness, taskId: string, kind: VersionKind, version: number, decision: "approve" | { reject: string }) {
  const stateName = kind === "prompt" ? "AwaitPromptApproval" : "AwaitProcessApproval";
  await h.local.waitFor(
    () => h.local.pendingTokens().find((p) => p.executionName === taskId && p.stateName === stateName && (p.payload as { version?: number }).version === version),
    10_000,
    `${kind} v${version} approval`,
  );
  const target = { taskId, kind, version };
  const result = decision === "approve" ? await approve(h.actions, h.actor, target) : await reject(h.actions, h.actor, target, decision.reject);
  if (result.outcome !== "applied") throw new Error(`decision on ${kind} v${version} was ${result.outcome}: ${JSON.stringify(result)}`);
}

/** The ExecutionRun execution the pipeline started for run N, once it exists. */
export function runExecution(h: PipelineHarness, taskId: string, executionNo = 1) {
  return h.local.waitFor(() => h.local.execution("ExecutionRun", `${taskId}-e${executionNo}`), 10_000, `ExecutionRun ${executionNo}`);
}

/**
 * The happy path to the end of TaskPipeline: L1–L3 answer as scripted and both approvals are given; the pipeline
 * has ended (callers check its status — a StartRun fault ends it FAILED). Faults for the run are armed before.
 */
export async function approveTask(h: PipelineHarness, l3: ScriptedReply = l3Ok()) {
  h.anthropic.enqueue(l1Ok(), l2Ok(), l3);
  const { execution, taskId, thread } = h.startTask();
  await decide(h, taskId, "prompt", 1, "approve");
  await decide(h, taskId, "process", 1, "approve");
  await execution.done;
  return { execution, taskId, thread };
}

/** The happy path to the end of run 1: `approveTask`, then ExecutionRun 1 to its end (callers check the run's status). */
export async function runApprovedTask(h: PipelineHarness) {
  const approved = await approveTask(h);
  const run = await runExecution(h, approved.taskId);
  await run.done;
  return { ...approved, run };
}

/** Every text Slack was sent (postMessage / update) for this run, in order. */
export function slackTexts(h: PipelineHarness): string[] {
  return h.slack.calls.filter((c) => c.method === "chat.postMessage" || c.method === "chat.update").map((c) => JSON.stringify(c.body));
}

import { expect } from "vitest";
import type { LocalExecution } from "../../dev/local/local-step-functions";
import { failuresOf, retriesOf } from "../support/local-sfn";

export interface ExpectedFailure {
  /** The Task state whose Retry/Catch row is under test. */
  state: string;
  retries: number;
  /** Times the state failed; default retries + 1 (more when a Catch loop re-enters it, as L3 does). */
  attempts?: number;
  errorName: string;
  layer: "L1" | "L2" | "L3" | "L4";
  /** The message the user must see. */
  message: string;
  version?: { kind: "prompt" | "process"; version: number };
}

/**
 * One row of the error table, checked from the local run: the state was retried exactly `retries` times and
 * then caught (the failure path ran), the task (and version) are `failed` with the error name, the
 * `error.<layer>` audit entry exists, and Slack was sent the user message.
 */
export async function expectPipelineFailure(h: PipelineHarness, execution: LocalExecution, taskId: string, e: ExpectedFailure) {
  await execution.done;
  expect(execution.status).toBe("FAILED");
  expect(retriesOf(execution, e.state)).toBe(e.retries);
  const failures = failuresOf(execution, e.state);
  expect(failures).toHaveLength(e.attempts ?? e.retries + 1);
  expect(failures.every((name) => name === e.errorName), failures.join(",")).toBe(true);
  expect(execution.events.some((ev) => ev.type === "StateEntered" && (ev as { state: { name: string } }).state.name === "RecordPipelineFailure")).toBe(true);
  expect(execution.error).toBe(e.errorName);
  const history = await h.store.loadHistory(taskId);
  expect(history.task.status).toBe("failed");
  expect(history.task.failure).toMatchObject({ layer: e.layer, errorName: e.errorName });
  if (e.version !== undefined) {
    const list = e.version.kind === "prompt" ? history.prompts : history.processes;
    expect(list.find((v) => v.version === e.version!.version)).toMatchObject({ status: "failed", errorName: e.errorName });
  }
  const audit = history.audit.filter((a) => a.action === `error.${e.layer}`);
  expect(audit).toHaveLength(1);
  expect(audit[0]).toMatchObject({ errorType: e.errorName, layer: e.layer });
  expect(slackTexts(h).some((t) => t.includes(e.message)), `Slack never showed ${e.message}`).toBe(true);
  expect(h.anthropic.pending()).toBe(0);
}

/**
 * The pipeline with the real freee MCP server behind MCP_SERVER_URL, for tests that drive the agent's tool calls
 * themselves. The run keeps polling while a test drives those calls; its Wait states last 0 ms, but each poll
 * still counts the poll interval towards the run's limit, so the limit is put out of reach (no test here is about
 * it).
 */
export async function startPipelineWithMcpServer(): Promise<{ h: PipelineHarness; mcpUrl: string; close(): Promise<void> }> {
  let handler: ((event: never) => Promise<never>) | undefined;
  const mcp = await serveFunctionUrl((event) => handler!(event as never));
  const h = await startPipelineHarness({ env: { MCP_SERVER_URL: `${mcp.url}/mcp`, RUN_TIMEOUT_SECONDS: "86400" } });
  handler = plainFunctionUrlHandler(await createFreeeMcpHandlerFromEnv({ ...h.env, MCP_BEARER_SECRET, LOG_LEVEL: "SILENT" })) as never;
  return {
    h,
    mcpUrl: mcp.url,
    close: async () => {
      await h.close();
      await mcp.close();
    },
  };
}

/**
 * startPipelineWithMcpServer as the file's vitest hooks, handed to `use`: before each test Slack's record is
 * cleared and freee's data reset to its seed values (a write of what an earlier test left would be a no-op), and
 * the workspace connected again.
 */
export function usePipelineWithMcpServer(use: (started: { h: PipelineHarness; mcpUrl: string }) => void): void {
  let started: Awaited<ReturnType<typeof startPipelineWithMcpServer>> | undefined;
  beforeAll(async () => {
    started = await startPipelineWithMcpServer();
    use(started);
  });
  afterAll(async () => started?.close());
  beforeEach(async () => {
    if (started === undefined) throw new Error("usePipelineWithMcpServer: the pipeline did not start");
    started.h.slack.reset();
    started.h.resetFreeeData();
    await started.h.connectFreee();
  });
}

/** Run N's agent session once the run has one, and the official MCP client connected with the session's own bearer. */
export async function agentOfSession(h: PipelineHarness, mcpUrl: string, taskId: string, executionNo = 1) {
  const sessionId = await until("the run's session", async () => (await h.store.getExecution(taskId, executionNo))?.sessionId);
  const session = h.agents.sessions.get(sessionId)!;
  const credential = [...h.agents.credentials.values()].find((c) => session.vault_ids.includes(c.vaultId))!;
  const token = (credential.body.auth as { token: string }).token;
  const agent = new Client({ name: "test-agent", version: "1.0.0" });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${mcpUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return { sessionId, session, agent };
}
