import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isTerminal } from "../../lib/core/domain/status";
import type { CardSubject } from "../../lib/core/domain/card-refresher";
import { renderCard } from "../../lib/ingress/cards";
import type { TaskHistory } from "../../lib/store/task-store";
import { failureMessageFor } from "../../lib/core/messages/ja";
import { buildLedger, type Ledger } from "../../lib/store/ledger";
import { webAdminUrlFromEnv } from "../../wiring/web-admin-url";
import { FLOWS } from "./flows";
import type { ExpectedEnd } from "./matrix";
import type { ScenarioRun } from "./scenario";
import type { ChaosStack } from "./stack";

/**
 * The invariants, checked on one finished cell:
 *  - the task and its executions end in a terminal status, each with its audit entry;
 *  - every card the table points at shows exactly what the table says (re-rendered from the DB), and no
 *    other message in the thread offers a live button;
 *  - no freee write reached freee twice; nothing is marked done that was not (a completed run changed freee);
 *  - an ended run's agent session is not left working, and the MCP server refuses its bearer.
 */
export interface Verdict {
  ok: boolean;
  outcome: string;
  problems: string[];
}

/**
 * Where a task rests when nothing more happens without the user (failed / cancelled may be rerun; answered is
 * a message L1 read as no request).
 */
const ENDED_TASK: ReadonlySet<string> = new Set(["completed", "failed", "cancelled", "closed", "answered"]);

export async function checkInvariants(chaos: ChaosStack, run: ScenarioRun): Promise<Verdict> {
  const problems: string[] = [];
  if (run.stuck !== undefined) problems.push(`stuck: ${run.stuck}`);
  const task = await chaos.direct.getTask(run.taskId);
  if (task === undefined) return checkUncreated(chaos, run, problems);
  const h = await chaos.direct.loadHistory(run.taskId);
  const outcome = `task ${h.task.status}; runs ${h.executions.map((e) => `${e.status}${e.errorName === undefined ? "" : `(${e.errorName}: ${(e.errorMessage ?? "").slice(0, 80)})`}`).join(",") || "-"}`;

  // --- terminal, each with its audit entry
  if (!ENDED_TASK.has(h.task.status)) problems.push(`task left ${h.task.status}`);
  const audit = new Set(h.audit.map((a) => a.auditKey));
  const actions = h.audit.map((a) => a.action);
  for (const e of h.executions) {
    if (!isTerminal("execution", e.status)) problems.push(`execution #${e.executionNo} left ${e.status}`);
    const key = e.status === "completed" ? `execution.completed#execution#${e.executionNo}` : e.status === "cancelled" ? `execution.cancelled#execution#${e.executionNo}` : `error.L4#execution#${e.executionNo}`;
    if ((e.status === "completed" || e.status === "cancelled" || e.status === "failed" || e.status === "timed_out") && !audit.has(key)) {
      problems.push(`execution #${e.executionNo} ${e.status} without audit ${key}`);
    }
  }
  if (h.task.status === "failed" && !actions.some((a) => a.startsWith("error."))) problems.push("task failed without an error audit entry");
  if (h.task.status === "completed" && !h.executions.some((e) => e.status === "completed")) problems.push("task completed without a completed run");
  if (h.task.status === "answered") {
    if (!actions.includes("task.answered")) problems.push("task answered without its task.answered audit entry");
    if (h.prompts.length + h.processes.length + h.executions.length > 0) problems.push("task answered as no request but has a plan or a run");
  }
  for (const v of [...h.prompts, ...h.processes]) {
    const kind = h.prompts.includes(v as never) ? "prompt" : "process";
    if (v.status === "approved" && !audit.has(`${kind}.approved#${kind}#${v.version}`)) problems.push(`${kind} v${v.version} approved without its audit entry`);
    if (v.status === "pending_approval" && ENDED_TASK.has(h.task.status)) problems.push(`${kind} v${v.version} still pending on a ${h.task.status} task`);
  }

  // --- the cards tell the truth
  problems.push(...checkCards(chaos, run, h));

  // --- freee: no write twice, nothing done that was not
  const flow = FLOWS[run.flow];
  const writes = chaos.freee.requests.filter((r) => flow.isWrite(r));
  if (writes.length > 1) problems.push(`freee write reached freee ${writes.length} times`);
  const shown = flow.notWritten(chaos.freee);
  for (const e of h.executions.filter((x) => x.status === "completed")) {
    if (shown !== undefined) problems.push(`execution #${e.executionNo} completed but freee shows ${shown}`);
  }

  // --- an ended run is over for the agent and for the MCP server
  for (const e of h.executions) {
    if (e.sessionId === undefined || !isTerminal("execution", e.status)) continue;
    const session = chaos.model.sessions.get(e.sessionId);
    if (session !== undefined && session.status === "running" && !session.interrupted) problems.push(`execution #${e.executionNo} ${e.status} but its agent session still runs`);
  }
  for (const bearer of bearersOf(chaos)) {
    if (!h.executions.every((e) => isTerminal("execution", e.status))) break;
    const answer = await probeMcp(chaos, bearer);
    if (answer !== "refused") problems.push(`MCP server still serves an ended run's bearer (${answer})`);
  }
  return { ok: problems.length === 0, outcome, problems };
}

/**
 * A cell whose fault has its own ending (matrix.ts `expect`): the task failed at that layer with that error, the
 * thread says the error's message, the ledger counts it, and the agent was told what the table says.
 */
export async function checkEnding(chaos: ChaosStack, run: ScenarioRun, expected: ExpectedEnd): Promise<string[]> {
  const problems: string[] = [];
  const h = await chaos.direct.loadHistory(run.taskId);
  const failure = h.task.failure;
  if (failure?.layer !== expected.layer || failure.errorName !== expected.errorName) {
    problems.push(`task ended ${h.task.status} (${failure === undefined ? "no failure" : `${failure.layer} ${failure.errorName}`}), not failed at ${expected.layer} with ${expected.errorName}`);
  }
  const message = failureMessageFor(expected.layer, expected.errorName, placesOf(chaos));
  const shown = JSON.stringify(chaos.slack.workspace.thread(run.threadTs));
  // Line by line: the thread is compared as JSON, where a message's line break is escaped.
  if (!message.split("\n").every((line) => shown.includes(JSON.stringify(line).slice(1, -1)))) problems.push(`the thread does not say 「${message}」`);
  if (expected.threadText !== undefined && !expected.threadText.test(shown)) problems.push(`the thread does not show ${String(expected.threadText)}`);
  const ledger = buildLedger(h.audit, { since: "2000-01-01T00:00:00.000Z", until: "2100-01-01T00:00:00.000Z" });
  const counted = ledger.failuresByClass.find((f) => f.layer === expected.layer && f.errorClass === expected.errorName)?.count ?? 0;
  if (counted === 0) problems.push(`the ledger counts no ${expected.layer} ${expected.errorName}`);
  if (expected.layer === "L4" && ledger.runsNotCompleted[expected.errorName as keyof Ledger["runsNotCompleted"]] !== 1) problems.push(`the ledger's runs not completed count no ${expected.errorName}`);
  if (expected.agentText !== undefined) {
    const told = [...chaos.model.sessions.values()].flatMap((s) => s.events).filter((e) => e.type === "agent.mcp_tool_result").map((e) => JSON.stringify(e.content ?? []));
    if (!told.some((t) => expected.agentText!.test(t))) problems.push(`the agent was never told ${String(expected.agentText)}`);
  }
  return problems;
}

/**
 * A click the fault hit was answered `message` and decided nothing (matrix.ts `askedAgain`): the member was told,
 * the failure is on the task's audit log and counted by the ledger, no refusal was recorded, and the one approval
 * the Process holds came after that failure (the second click's).
 */
export async function checkAskedAgain(chaos: ChaosStack, run: ScenarioRun, message: string): Promise<string[]> {
  const problems: string[] = [];
  const told = chaos.slack.workspace.messages.some((m) => m.ephemeral === true && m.user === chaos.stack.sandbox.userId && m.text === message);
  if (!told) problems.push(`the member was never told 「${message}」`);
  const h = await chaos.direct.loadHistory(run.taskId);
  const failure = h.audit.find((a) => a.action === "error.ingress" && a.errorType !== undefined);
  if (failure === undefined) problems.push("the failed click has no error.ingress audit entry");
  else if (failure.details.userMessage !== message) problems.push("the failed click's audit entry does not carry the message the member saw");
  if (h.audit.some((a) => a.action === "process.decision_refused")) problems.push("the failed click was recorded as a refusal");
  const ledger = buildLedger(h.audit, { since: "2000-01-01T00:00:00.000Z", until: "2100-01-01T00:00:00.000Z" });
  if (failure !== undefined && !ledger.errorEntriesByClass.some((f) => f.layer === "ingress" && f.errorClass === failure.errorType && f.count > 0)) problems.push(`the ledger counts no ingress ${failure.errorType}`);
  const process = h.processes.find((p) => p.version === 1);
  const approved = h.audit.filter((a) => a.action === "process.approved");
  if (process?.status !== "approved" || approved.length !== 1) problems.push(`process v1 ${process?.status ?? "missing"} with ${approved.length} approval entries, not approved once`);
  else if (failure !== undefined && approved[0]!.at < failure.at) problems.push("the process was approved before the failed click: the click granted it");
  return problems;
}

/** A task that could not even be created: the user is told in the thread, and nothing else exists. */
async function checkUncreated(chaos: ChaosStack, run: ScenarioRun, problems: string[]): Promise<Verdict> {
  const thread = chaos.slack.workspace.thread(run.threadTs).filter((m) => !m.ephemeral);
  if (!thread.some((m) => m.text === failureMessageFor("L1", "any"))) problems.push("task not created and the thread says nothing");
  const audit = await chaos.direct.listAuditByTeam(chaos.stack.sandbox.teamId);
  if (!audit.some((a) => a.action === "error.L1")) problems.push("task not created and no error.L1 audit entry");
  return { ok: problems.length === 0, outcome: "task not created", problems };
}

function checkCards(chaos: ChaosStack, run: ScenarioRun, h: TaskHistory): string[] {
  const problems: string[] = [];
  const thread = chaos.slack.workspace.thread(run.threadTs).filter((m) => !m.ephemeral && m.bot);
  const limits = { maxReruns: Number(chaos.stack.env.MAX_RERUNS ?? 3) };
  const held = new Set<string>();
  const expect = (label: string, ts: string | undefined, subject: CardSubject, required: boolean) => {
    if (ts === undefined) {
      if (required) problems.push(`no ${label} card`);
      return;
    }
    held.add(ts);
    const shown = thread.find((m) => m.ts === ts);
    if (shown === undefined) return void problems.push(`${label} card ${ts} is not in the thread`);
    const truth = renderCard(h, subject, limits, placesOf(chaos));
    if (shown.text !== truth.text || JSON.stringify(shown.blocks ?? []) !== JSON.stringify(truth.blocks)) {
      problems.push(`${label} card shows 「${shown.text}」, the table says 「${truth.text}」`);
    }
  };
  expect("task", h.task.cards.task, { kind: "task" }, true);
  expect("prompt", h.task.cards.prompt, { kind: "prompt" }, h.prompts.length > 0);
  expect("process", h.task.cards.process, { kind: "process" }, h.processes.length > 0);
  for (const e of h.executions) expect(`execution #${e.executionNo}`, e.cardTs, { kind: "execution", executionNo: e.executionNo }, true);
  for (const m of thread) {
    if (held.has(m.ts)) continue;
    if ((m.blocks ?? []).some((b) => (b as { type?: string }).type === "actions")) problems.push(`stray card 「${m.text}」 offers live buttons`);
  }
  return problems;
}

/** Where the stack's cards link to (the web admin's 設定 on a freee connection failure), as its steps render them. */
function placesOf(chaos: ChaosStack): { adminUrl?: string } {
  const adminUrl = webAdminUrlFromEnv(chaos.stack.env);
  return adminUrl === undefined ? {} : { adminUrl };
}

/** The MCP bearers the Managed Agents vaults were given (captured at the proxy, as the agent holds them). */
function bearersOf(chaos: ChaosStack): string[] {
  const out: string[] = [];
  for (const r of chaos.proxies["Managed Agents"].requests) {
    if (r.method !== "POST" || !/^\/v1\/vaults\/[^/]+\/credentials/.test(r.path)) continue;
    const token = (JSON.parse(r.body) as { auth?: { token?: unknown } }).auth?.token;
    if (typeof token === "string") out.push(token);
  }
  return out;
}

/** One read tool call with the bearer: "refused" (HTTP refusal or a tool error saying the run ended) or what came back. */
async function probeMcp(chaos: ChaosStack, bearer: string): Promise<string> {
  const client = new Client({ name: "chaos-probe", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(chaos.stack.env.MCP_SERVER_URL!), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  } catch (err) {
    return /40[13]|unauthori[sz]ed|forbidden/i.test(err instanceof Error ? err.message : String(err)) ? "refused" : `connect failed: ${String(err)}`;
  }
  try {
    const result = (await client.callTool({ name: "freee_hr_list_employees", arguments: { year: 2030, month: 1 } })) as CallToolResult;
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    return result.isError === true && text.includes("終了") ? "refused" : `served a tool call (${text.slice(0, 60)})`;
  } catch (err) {
    return /40[13]|forbidden/i.test(err instanceof Error ? err.message : String(err)) ? "refused" : `call failed: ${String(err)}`;
  }
  finally {
    await client.close();
  }
}
