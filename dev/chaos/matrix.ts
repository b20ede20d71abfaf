import { DYNAMODB_CALL, SFN_CALL, SLACK_CALL } from "../../lib/core/config/client-budgets";
import type { FaultRule, ProxiedRequest } from "./fault-proxy";
import type { Dependency, FaultKind } from "./faults";
import { FLOWS, GENERIC_FLOWS, type Flow } from "./flows";
import { isSessionCreate, type ScenarioKind } from "./scenario";
import { PolicyMessages } from "../../lib/core/messages/policy";

/**
 * The fault matrix: dependency × step of a task × the faults that fit. Each cell is one whole task
 * (scenario) with one fault armed at one dependency's proxy for the requests of one step.
 */
export const STEPS = [
  "create",
  "L1",
  "L2",
  "approval (prompt)",
  "L3",
  "preview",
  "approval (process)",
  "start",
  "poll",
  "cancel",
  "rerun",
  "failure recording (pipeline)",
  "failure recording (run)",
] as const;
export type Step = (typeof STEPS)[number];

export interface Cell {
  dependency: Dependency;
  step: Step;
  fault: FaultKind;
  /** How many matching requests the fault hits (a throttling burst is several). */
  times: number;
  scenario: ScenarioKind;
  /** Which of the step's requests (default: all of this dependency's requests while the step runs). */
  only?: (request: ProxiedRequest) => boolean;
  /**
   * Where the step's effect is made when that is not the step's own requests: an approval's click acks after one
   * write and SendTaskSuccess; its audit entry and its card come from the step it resumed.
   */
  at?: (request: ProxiedRequest) => boolean;
  /** What the fault is aimed at, for the table ("audit write"). */
  label?: string;
  /** The self-playing agent claims the run done whatever its tool calls answered (the freee cells). */
  agentClaimsDone?: boolean;
  /** The request posted (dev/chaos/flows.ts); the pay rule unless set. */
  flow?: Flow;
  /** How the task must end, beyond the invariants (a fault the error table gives its own ending). */
  expect?: ExpectedEnd;
  /**
   * The click the fault hits is answered with this message and neither granted nor refused: the person clicks
   * again (dev/chaos/scenario.ts), the failure is audited and counted, and the task goes on.
   */
  askedAgain?: string;
}

/**
 * The ending a fault must reach: the layer and error the task fails with (its message in the thread, counted in the
 * ledger), and what the agent was told, where the table names it (freee's 403 throttle: the time to run it again).
 */
export interface ExpectedEnd {
  layer: "L1" | "L3" | "L4";
  errorName: string;
  agentText?: RegExp;
  /** A line the thread shows besides the error's message. */
  threadText?: RegExp;
}

/**
 * The requests of a step: by who sent them (the ingress during the user's click, or the step's Lambda) and, where
 * one Lambda serves two states (await-approval) or a click has effects after it (cancel, rerun), by the phase.
 */
export function inStep(step: Step, r: ProxiedRequest): boolean {
  const has = (p: string) => r.phases.includes(p);
  const from = (consumer: string) => r.consumer === consumer;
  const click = (what: string) => from("ingress") && has(`ingress:${what}`);
  switch (step) {
    case "create":
      return click("create") || from("create-task");
    case "L1":
      return from("analyze-task");
    case "L2":
      return from("generate-prompt") || (from("await-approval") && has("AwaitPromptApproval"));
    case "approval (prompt)":
      return click("approve prompt v1");
    case "L3":
      return from("generate-process") || (from("await-approval") && has("AwaitProcessApproval"));
    case "preview":
      return from("preview-process");
    case "approval (process)":
      return click("approve process v1");
    case "start":
      return from("start-run") || (from("start-session") && !has("after:rerun"));
    case "poll":
      return from("poll-session") && !has("after:cancel");
    case "cancel":
      // The poll that sees the cancel may run while the click is still answering (before the mark is set).
      return click("cancel run 1") || (from("poll-session") && (has("after:cancel") || has("ingress:cancel run 1")));
    case "rerun":
      return click("rerun run 1") || (from("start-session") && has("after:rerun"));
    case "failure recording (pipeline)":
      return from("record-pipeline-failure");
    case "failure recording (run)":
      return from("record-run-failure");
  }
}

/** Past the client-side timeout each dependency's caller has (ms): a "timeout" holds the request that long. */
export const HOLD_MS: Record<Dependency, number> = {
  DynamoDB: DYNAMODB_CALL.timeoutMs + 500,
  "Step Functions": SFN_CALL.timeoutMs + 500,
  Slack: SLACK_CALL.timeoutMs + 500,
  // The stack sets L1–L3_TIMEOUT_MS and ANTHROPIC_TIMEOUT_MS to 1500 (dev/chaos/stack.ts).
  "Anthropic Messages": 2000,
  "Managed Agents": 2000,
  freee: 16_000,
};

const sfnOp = (op: string) => (r: ProxiedRequest) => r.headers["x-amz-target"] === `AWSStepFunctions.${op}`;
const isInterrupt = (r: ProxiedRequest) => r.method === "POST" && /^\/v1\/sessions\/[^/]+\/events/.test(r.path) && r.body.includes("user.interrupt");
const isSessionPoll = (r: ProxiedRequest) => r.method === "GET" && /^\/v1\/sessions\/[^/?]+/.test(r.path);
const isFreeeWrite = (r: ProxiedRequest) => FLOWS.pay_rule.isWrite(r);
const isFreeeRead = (r: ProxiedRequest) => r.method === "GET" && r.path.startsWith("/hr/api/v1/employees");
const isChat = (r: ProxiedRequest) => r.path.startsWith("/chat.");
/**
 * The write of an audit entry (sk AUDIT#…): its own PutItem, or the TransactWriteItems of the effect it rides
 * (lib/store/item-table.ts writeWithEntries); both SDK attempts of one write fail.
 */
const isAuditWrite = (r: ProxiedRequest) =>
  ["DynamoDB_20120810.PutItem", "DynamoDB_20120810.TransactWriteItems"].includes(r.headers["x-amz-target"] ?? "") && r.body.includes('"AUDIT#');

/** The audit entry a decision promised (`AUDIT#prompt.approved#prompt#1`), confirmed by the step it resumed. */
const isDecisionAudit = (kind: "prompt" | "process", version = 1) => (r: ProxiedRequest) => isAuditWrite(r) && r.body.includes(`"AUDIT#${kind}.approved#${kind}#${version}"`);
/** The decided card's update (「実行方針 v1: 承認済み」), drawn by the step the decision resumed. */
const isApprovedCardUpdate = (r: ProxiedRequest) => r.path.startsWith("/chat.update") && (new URLSearchParams(r.body).get("text") ?? r.body).includes("承認済み");
/** The requests one step Lambda sends (an approval's effects come from the step it resumes: the Prompt's from GenerateProcess). */
const sentBy = (consumer: string) => (r: ProxiedRequest) => r.consumer === consumer;

const c = (dependency: Dependency, step: Step, fault: FaultKind, scenario: ScenarioKind = "complete", extra: Partial<Pick<Cell, "times" | "only" | "at" | "label" | "expect" | "askedAgain">> = {}): Cell => ({
  dependency,
  step,
  fault,
  scenario,
  times: extra.times ?? (fault === "throttle" ? 3 : fault === "5xx" ? 2 : 1),
  ...(extra.only === undefined ? {} : { only: extra.only }),
  ...(extra.at === undefined ? {} : { at: extra.at }),
  ...(extra.label === undefined ? {} : { label: extra.label }),
  ...(extra.expect === undefined ? {} : { expect: extra.expect }),
  ...(extra.askedAgain === undefined ? {} : { askedAgain: extra.askedAgain }),
});

/** The approval click's question to Slack: is the clicker in the policy's user group (lib/ingress/usergroups.ts). */
const isMembershipRead = (r: ProxiedRequest) => r.path.split("?")[0] === "/usergroups.users.list";
/** freee first's read of the workspace's connection (lib/store/freee-connection-status.ts), before L1 asks the model. */
const isFreeeConnectionRead = (r: ProxiedRequest) => r.headers["x-amz-target"] === "DynamoDB_20120810.GetItem" && r.body.includes('"sk":{"S":"FREEE"}');

/** A throttling burst longer than a few seconds ("DB ロック" while the failure is written). */
const BURST = 12;
/** What the agent is told of freee's 403 throttle (lib/core/messages/ja.ts freeeThrottledMessage): the time it lifts. */
const THROTTLE_LIFTS_AT = /freee のアクセス制限中です。\d{2}:\d{2}（日本時間）以降に再実行してください/;
/** An outage longer than the failure path's whole retry budget: only the reconciler can tell the truth then. */
const OUTAGE = 40;

export const CELLS: readonly Cell[] = [
  // DynamoDB: every step writes or reads the table.
  c("DynamoDB", "create", "throttle"),
  c("DynamoDB", "create", "lost"),
  c("DynamoDB", "L1", "throttle"),
  c("DynamoDB", "L2", "5xx"),
  c("DynamoDB", "L3", "timeout"),
  c("DynamoDB", "approval (prompt)", "throttle"),
  c("DynamoDB", "approval (prompt)", "lost"),
  c("DynamoDB", "approval (prompt)", "throttle", "complete", { at: sentBy("generate-process"), only: isDecisionAudit("prompt"), times: 2, label: "audit write" }),
  c("DynamoDB", "preview", "throttle"),
  c("DynamoDB", "preview", "lost"),
  c("DynamoDB", "approval (process)", "timeout"),
  c("DynamoDB", "start", "throttle"),
  c("DynamoDB", "poll", "5xx"),
  c("DynamoDB", "cancel", "throttle", "cancel"),
  c("DynamoDB", "cancel", "lost", "cancel"),
  c("DynamoDB", "cancel", "throttle", "cancel", { only: isAuditWrite, times: 2, label: "audit write" }),
  c("DynamoDB", "rerun", "throttle", "rerun"),
  c("DynamoDB", "failure recording (pipeline)", "throttle", "pipeline-failure", { times: BURST }),
  c("DynamoDB", "failure recording (run)", "throttle", "run-failure", { times: BURST }),
  c("DynamoDB", "failure recording (pipeline)", "throttle", "pipeline-failure", { times: OUTAGE }),
  c("DynamoDB", "failure recording (run)", "throttle", "run-failure", { times: OUTAGE }),
  // Slack: every step shows a card.
  c("Slack", "create", "5xx", "complete", { only: isChat }),
  c("Slack", "L1", "auth", "complete", { only: isChat }),
  c("Slack", "L2", "throttle", "complete", { only: isChat }),
  c("Slack", "L3", "lost", "complete", { only: isChat }),
  c("Slack", "approval (prompt)", "5xx", "complete", { at: sentBy("generate-process"), only: isApprovedCardUpdate }),
  c("Slack", "start", "timeout", "complete", { only: isChat }),
  c("Slack", "poll", "throttle", "complete", { only: isChat }),
  c("Slack", "cancel", "5xx", "cancel", { only: isChat }),
  c("Slack", "rerun", "lost", "rerun", { only: isChat }),
  c("Slack", "failure recording (run)", "5xx", "run-failure", { times: BURST, only: isChat }),
  c("Slack", "failure recording (run)", "5xx", "run-failure", { times: OUTAGE, only: isChat }),
  // Slack: the Process approval by a user group the policy names (the user is its member). Slack cannot say whether
  // the clicker is in it — rate limited, or 5xx on each of the client's attempts: nothing granted nor refused, the
  // member told to click again, the failure audited (error.ingress) and counted; the second click approves.
  c("Slack", "approval (process)", "throttle", "usergroup-approval", { only: isMembershipRead, times: 1, label: "user group membership", askedAgain: PolicyMessages.membershipUnknown }),
  c("Slack", "approval (process)", "5xx", "usergroup-approval", { only: isMembershipRead, times: SLACK_CALL.attempts, label: "user group membership", askedAgain: PolicyMessages.membershipUnknown }),
  // DynamoDB: freee first's read of the connection. Missing (disconnected), read through a throttle: stopped at L1
  // with the Task card's freee-first message, no plan. The read refused outright: stopped at L1 too.
  c("DynamoDB", "L1", "throttle", "freee-missing", { only: isFreeeConnectionRead, label: "freee connection read", expect: { layer: "L1", errorName: "AuthError" } }),
  c("DynamoDB", "L1", "auth", "complete", { only: isFreeeConnectionRead, label: "freee connection read", expect: { layer: "L1", errorName: "FatalConfigError" } }),
  // Anthropic Messages: L1–L3.
  c("Anthropic Messages", "L1", "throttle"),
  c("Anthropic Messages", "L1", "timeout"),
  c("Anthropic Messages", "L2", "5xx"),
  c("Anthropic Messages", "L2", "auth"),
  c("Anthropic Messages", "L3", "throttle"),
  c("Anthropic Messages", "L3", "lost"),
  // Managed Agents: the session of L4.
  c("Managed Agents", "start", "throttle", "complete", { only: isSessionCreate }),
  c("Managed Agents", "start", "lost", "complete", { only: isSessionCreate }),
  c("Managed Agents", "start", "timeout", "complete", { only: isSessionCreate }),
  c("Managed Agents", "poll", "5xx", "complete", { only: isSessionPoll }),
  c("Managed Agents", "poll", "timeout", "complete", { only: isSessionPoll }),
  c("Managed Agents", "cancel", "5xx", "cancel", { only: isInterrupt }),
  c("Managed Agents", "cancel", "lost", "cancel", { only: isInterrupt }),
  c("Managed Agents", "rerun", "throttle", "rerun", { only: isSessionCreate }),
  // freee: the agent's tool calls while the run is polled (any phase: the agent works between polls). The agent
  // claims done whatever freee answered: only the MCP server's ledger may mark a write done.
  ...[
    c("freee", "poll", "throttle", "complete", { only: isFreeeRead }),
    c("freee", "poll", "5xx", "complete", { only: isFreeeWrite, times: 1 }),
    c("freee", "poll", "lost", "complete", { only: isFreeeWrite }),
    c("freee", "poll", "auth", "complete", { only: isFreeeRead }),
    // freee's 403 throttle stops every call for its ten minutes, more than a run can wait: the run ends with when
    // to run it again, and the write is never sent (nor sent twice).
    c("freee", "poll", "throttle-403", "complete", { only: (r) => isFreeeRead(r) || isFreeeWrite(r), times: BURST, expect: { layer: "L4", errorName: "FreeeThrottledError", agentText: THROTTLE_LIFTS_AT, threadText: /freee の制限が解ける目安: \d{2}:\d{2}（日本時間）/ } }),
  ].map((cell) => ({ ...cell, agentClaimsDone: true })),
  // freee: the requests only the generic tools make. Each write is a POST no marker finds again: a reply lost after
  // freee made the record ends the run WriteOutcomeUnknownError (never a second POST), a 5xx before it fails the run.
  ...GENERIC_FLOWS.flatMap((flow) =>
    [c("freee", "poll", "lost", "complete", { only: FLOWS[flow].isWrite, label: FLOWS[flow].label }), c("freee", "poll", "5xx", "complete", { only: FLOWS[flow].isWrite, times: 1, label: FLOWS[flow].label })].map(
      (cell) => ({ ...cell, agentClaimsDone: true, flow }),
    ),
  ),
  // freee: the preview reads what each write will change, before the Process is shown for approval.
  c("freee", "preview", "5xx", "complete", { at: sentBy("preview-process"), only: isFreeeRead }),
  c("freee", "preview", "auth", "complete", { at: sentBy("preview-process"), only: isFreeeRead }),
  c("freee", "preview", "throttle-403", "complete", { at: sentBy("preview-process"), only: isFreeeRead, times: BURST, expect: { layer: "L3", errorName: "FreeeThrottledError" } }),
  // Step Functions: the ingress's StartExecution / SendTaskSuccess and StartRun's StartExecution.
  c("Step Functions", "create", "throttle", "complete", { only: sfnOp("StartExecution") }),
  c("Step Functions", "create", "lost", "complete", { only: sfnOp("StartExecution") }),
  c("Step Functions", "approval (prompt)", "throttle", "complete", { only: sfnOp("SendTaskSuccess") }),
  c("Step Functions", "approval (process)", "lost", "complete", { only: sfnOp("SendTaskSuccess") }),
  c("Step Functions", "start", "throttle", "complete", { only: sfnOp("StartExecution") }),
  c("Step Functions", "rerun", "lost", "rerun", { only: sfnOp("StartExecution") }),
];

/** freee cells match the MCP server's calls (the agent works between polls), the others by step. */
export function ruleFor(cell: Cell): FaultRule {
  const step = cell.at ?? (cell.dependency === "freee" ? (r: ProxiedRequest) => r.consumer === "mcp" : (r: ProxiedRequest) => inStep(cell.step, r));
  return {
    kind: cell.fault,
    times: cell.times,
    holdMs: HOLD_MS[cell.dependency],
    when: (r) => step(r) && (cell.only?.(r) ?? true),
  };
}

export function cellName(cell: Pick<Cell, "dependency" | "step" | "fault" | "times" | "label">): string {
  return `${cell.dependency} × ${cell.step} × ${faultLabel(cell)}`;
}

/** The fault as the table shows it: a long burst with its length, a fault aimed at the audit write says so. */
export function faultLabel(cell: Pick<Cell, "fault" | "times" | "label">): string {
  return `${cell.fault}${cell.times > 3 ? `×${cell.times}` : ""}${cell.label === undefined ? "" : ` (${cell.label})`}`;
}
