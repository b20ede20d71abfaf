import * as z from "zod/mini";
import { PreviewCompanySchema, ProcessPreviewSchema } from "./preview";
import { EXECUTION_STATUSES, TASK_STATUSES, VERSION_STATUSES } from "./status";
import { ApprovalRuleSchema, RecordedApprovalSchema } from "./approval-policy";

/**
 * zod schemas for what the table holds (docs/architecture.md, data model). Types are inferred from them: one source of truth.
 * `zod/mini` (the same zod core, functional checks): the Slack ingress parses these records, and the full `zod`
 * API would add ~450 KB to its bundle (docs/bench.md).
 */

const isoTime = z.string().check(z.minLength(1));
const slackTs = z.string().check(z.regex(/^\d+\.\d+$/, "Slack ts looks like 1700000000.000100"));

export const SlackThreadSchema = z.object({
  teamId: z.string().check(z.minLength(1)),
  enterpriseId: z.optional(z.string().check(z.minLength(1))),
  channelId: z.string().check(z.minLength(1)),
  /** ts of the user's message; the thread all cards go to. */
  messageTs: slackTs,
});
export type SlackThread = z.infer<typeof SlackThreadSchema>;

/** At most this many files per request (Slack shares up to 10 in one message). */
export const MAX_ATTACHMENTS = 10;

/**
 * A file shared with the request message: what the plan may name (its id) and what the approver is shown (name,
 * size, type). No URL: the MCP server asks Slack for the file by id when the approved step runs.
 */
export const SlackFileRefSchema = z.object({
  fileId: z.string().check(z.regex(/^F[A-Z0-9]{2,}$/)),
  name: z.string().check(z.minLength(1), z.maxLength(255)),
  size: z.int().check(z.nonnegative()),
  mimetype: z.string().check(z.minLength(1)),
});
export type SlackFileRef = z.infer<typeof SlackFileRefSchema>;
export const AttachmentsSchema = z.array(SlackFileRefSchema).check(z.maxLength(MAX_ATTACHMENTS));

/** L1's structured reading of the request (what a planner needs). */
export const TaskSpecSchema = z.object({
  title: z.string().check(z.minLength(1)),
  intent: z.string().check(z.minLength(1)),
  domain: z.enum(["hr", "accounting", "other"]),
  parameters: z.record(z.string(), z.unknown()),
  missingInformation: z.array(z.string()),
});
export type TaskSpec = z.infer<typeof TaskSpecSchema>;

export const CardRefsSchema = z.object({
  task: z.optional(slackTs),
  prompt: z.optional(slackTs),
  process: z.optional(slackTs),
});
export type CardRefs = z.infer<typeof CardRefsSchema>;

export const TaskSchema = z.object({
  taskId: z.string().check(z.minLength(1)),
  thread: SlackThreadSchema,
  requesterId: z.string().check(z.minLength(1)),
  requestText: z.string().check(z.minLength(1)),
  /** Files shared with the request message (a receipt for the file box). */
  attachments: z.optional(AttachmentsSchema),
  status: z.enum(TASK_STATUSES),
  spec: z.optional(TaskSpecSchema),
  currentPromptVersion: z.int().check(z.nonnegative()),
  currentProcessVersion: z.int().check(z.nonnegative()),
  /** Approved Process version the executions run (set when the Process is approved). */
  approvedProcessVersion: z.optional(z.int().check(z.positive())),
  executionCount: z.int().check(z.nonnegative()),
  cards: CardRefsSchema,
  pipelineExecutionName: z.string().check(z.minLength(1)),
  /** Why the task is `failed` (L1–L3) — the card shows the message (docs/architecture.md, messages) of that layer. */
  failure: z.optional(z.object({ layer: z.enum(["L1", "L2", "L3", "L4"]), errorName: z.string().check(z.minLength(1)), at: isoTime })),
  /** Why the task is `closed`. */
  closedReason: z.optional(z.enum(["regeneration_limit", "approval_expired"])),
  /** Why the task is `answered`: L1's short reply to a message that asked for no work on freee (no spec, no plan). */
  reply: z.optional(z.string().check(z.minLength(1))),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type Task = z.infer<typeof TaskSchema>;

export const LAYERS = ["ingress", "L1", "L2", "L3", "L4", "freee", "slack", "admin"] as const;
export type Layer = (typeof LAYERS)[number];

/**
 * An audit entry promised by the write that makes an effect possible (docs/architecture.md, who may act, docs/CONTRACTS.md "No effect
 * without its audit"): the decision write of a version, the cancel write and the claim of an Execution carry it,
 * in the same conditional write, so the entry exists (or is guaranteed) before the effect. The step that resumes
 * writes it under its deterministic key (action#subject); the failure path, the reconciler and a repeated click
 * write it again, which stores it once.
 */
export const PendingAuditSchema = z.object({
  action: z.string().check(z.minLength(1)),
  subject: z.string().check(z.minLength(1)),
  actor: z.string().check(z.minLength(1)),
  layer: z.optional(z.enum(LAYERS)),
  details: z.record(z.string(), z.unknown()),
  /** When the effect was asked for: the audit entry's time, whoever writes it. */
  at: isoTime,
});
export type PendingAudit = z.infer<typeof PendingAuditSchema>;

export const DecisionSchema = z.object({
  decision: z.enum(["approved", "rejected"]),
  reason: z.optional(z.string()),
  actorId: z.string().check(z.minLength(1)),
  /** A Process approval: where the approver saw the plan whole. */
  via: z.optional(z.enum(["card", "full_plan"])),
  /** The approval policy's rule that allowed it (lib/core/domain/approval-policy.ts), named in its audit entry. */
  rule: z.optional(z.string().check(z.minLength(1))),
  /** A two-person plan: who approved before this decision. */
  earlierApprovals: z.optional(z.array(RecordedApprovalSchema)),
  decidedAt: isoTime,
});
export type Decision = z.infer<typeof DecisionSchema>;

const versionBase = {
  taskId: z.string().check(z.minLength(1)),
  version: z.int().check(z.positive()),
  status: z.enum(VERSION_STATUSES),
  /** Set while pending_approval; removed once decided. Never placed in a button. */
  taskToken: z.optional(z.string().check(z.minLength(1))),
  /** Reason that made this version (the previous version's rejection reason). */
  regeneratedFor: z.optional(z.string().check(z.minLength(1))),
  decision: z.optional(DecisionSchema),
  /** The decision's audit entry, promised in the decision write itself (lib/store/decision.ts). */
  decisionAudit: z.optional(PendingAuditSchema),
  errorName: z.optional(z.string()),
  createdAt: isoTime,
  updatedAt: isoTime,
};

export const PromptVersionSchema = z.object({
  ...versionBase,
  kind: z.literal("prompt"),
  text: z.optional(z.string().check(z.minLength(1))),
});
export type PromptVersion = z.infer<typeof PromptVersionSchema>;

/**
 * What an `agent_decide` step may read (docs/architecture.md, the approved Process is the capability): these read tools, and for the free-form GET only paths under
 * these prefixes. An agent_decide step never writes.
 */
export const ReadScopeSchema = z.object({
  tools: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
  pathPrefixes: z.optional(z.array(z.string().check(z.minLength(1)))),
});
export type ReadScope = z.infer<typeof ReadScopeSchema>;

/**
 * A value of a write step the request gave as a name (「山田さん」, 「消耗品費」): `field` is its dotted path in
 * `toolInput` (`employee_id`, `details.0.account_item_id`). The step is executable only once the id is in
 * `toolInput` (resolved against freee before approval); the agent never guesses it at run time.
 */
export const NameRefSchema = z.object({ field: z.string().check(z.minLength(1)), name: z.string().check(z.minLength(1)) });
export type NameRef = z.infer<typeof NameRefSchema>;

/**
 * One step of a Process. `effect`, `readScope` and `nameRefs` came with the capability rules; a record written
 * before them still reads (the effect is the tool's; an agent_decide step without a scope may read nothing).
 */
export const ProcessStepSchema = z.object({
  stepId: z.string().check(z.minLength(1)),
  order: z.int().check(z.positive()),
  tool: z.string().check(z.minLength(1)),
  toolInput: z.record(z.string(), z.unknown()),
  effect: z.optional(z.enum(["read", "write"])),
  readScope: z.optional(ReadScopeSchema),
  nameRefs: z.optional(z.array(NameRefSchema)),
});
export type ProcessStep = z.infer<typeof ProcessStepSchema>;

export const ProcessVersionSchema = z.object({
  ...versionBase,
  kind: z.literal("process"),
  basedOnPromptVersion: z.int().check(z.positive()),
  steps: z.optional(z.array(ProcessStepSchema).check(z.minLength(1))),
  /** What each write step will change, read from freee before the card asks for approval (lib/preview). */
  preview: z.optional(ProcessPreviewSchema),
  /**
   * Where the approver can see this plan whole, so where it may be approved from (stored with the preview; the
   * decision write requires the click's place): the card, the full-plan modal, both or neither.
   */
  approvableVia: z.optional(z.array(z.enum(["card", "full_plan"]))),
  /** The approval policy as it stood when the card asked for approval: the rule this version is judged by. */
  approvalRule: z.optional(ApprovalRuleSchema),
  /** A two-person plan's approvals so far (the first; the second decides). `approvedBy` lists their ids. */
  approvals: z.optional(z.array(RecordedApprovalSchema)),
  approvedBy: z.optional(z.array(z.string())),
  /** The owner the approval is bound to, written when the wait opens (lib/store/versions.ts openApproval). */
  teamId: z.optional(z.string().check(z.minLength(1))),
  requesterId: z.optional(z.string().check(z.minLength(1))),
});
export type ProcessVersion = z.infer<typeof ProcessVersionSchema>;

export type VersionKind = "prompt" | "process";
/** Where a Process approval was clicked: the card's [承認], or the submit of the full-plan modal. */
export type ApprovalSource = "card" | "full_plan";
export type AnyVersion = PromptVersion | ProcessVersion;

export const TokenUsageSchema = z.object({
  inputTokens: z.int().check(z.nonnegative()),
  outputTokens: z.int().check(z.nonnegative()),
  cacheReadInputTokens: z.int().check(z.nonnegative()),
  cacheCreationInputTokens: z.int().check(z.nonnegative()),
});
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

/**
 * What a read step returned, as a small table for the card (and a CSV in the thread when it is long): the first
 * list in freee's answer, a few columns, cells cut short. `total` is how many rows freee returned.
 */
export const ReadTableSchema = z.object({
  /** 「取引」「従業員」: what the rows are. */
  label: z.string().check(z.minLength(1)),
  columns: z.array(z.string()),
  rows: z.array(z.array(z.string())),
  total: z.int().check(z.nonnegative()),
});
export type ReadTable = z.infer<typeof ReadTableSchema>;

/**
 * One approved step as the session events show it (lib/model/agent/session-events.ts): started at its `[step:…]` marker,
 * `done` / `failed` by its last tool result. `note` is a one-line Japanese result for the card.
 */
export const StepProgressSchema = z.object({
  stepId: z.string().check(z.minLength(1)),
  state: z.enum(["running", "done", "failed"]),
  okCalls: z.int().check(z.nonnegative()),
  errorCalls: z.int().check(z.nonnegative()),
  note: z.optional(z.string()),
  table: z.optional(ReadTableSchema),
  /** HR personal fields the step's results held (lib/freee/hr-personal-data.ts): shown only to whom may see them. */
  personal: z.optional(z.array(z.string())),
});
export type StepProgress = z.infer<typeof StepProgressSchema>;

export const ExecutionProgressSchema = z.object({
  /** Events already processed (ids), so a poll never counts one twice. */
  seenEventIds: z.array(z.string()),
  lastEventAt: z.optional(isoTime),
  currentStepId: z.optional(z.string()),
  currentTool: z.optional(z.string()),
  completedSteps: z.int().check(z.nonnegative()),
  toolErrors: z.array(z.object({ tool: z.string(), message: z.string() })),
  /** The steps were sent: only an idle/end_turn after this counts as done. */
  stepsSentAt: z.optional(isoTime),
  /** Each step the agent started, in the order it started them. */
  steps: z.optional(z.array(StepProgressSchema)),
});
export type ExecutionProgress = z.infer<typeof ExecutionProgressSchema>;

export const ExecutionCompletionSchema = z.object({
  /** Approved write steps with a recorded successful tool call (the MCP server's write ledger). */
  writeStepsDone: z.array(z.string()),
  /** Approved write steps without one (what a rerun does). */
  writeStepsMissing: z.array(z.string()),
  /**
   * What the agent's final message said: `[result:done]`, `[result:incomplete]`, or no result line; `no_session`
   * for a rerun that found every step already done.
   */
  reported: z.enum(["done", "incomplete", "missing", "no_session"]),
  judgedAt: isoTime,
});
export type ExecutionCompletion = z.infer<typeof ExecutionCompletionSchema>;

/** A freee record a write step made or changed, with what the card links to (lib/freee/web-links.ts). */
export const FreeeRecordRefSchema = z.object({
  stepId: z.string().check(z.minLength(1)),
  kind: z.enum(["deal", "employee"]),
  id: z.int().check(z.positive()),
});
export type FreeeRecordRef = z.infer<typeof FreeeRecordRefSchema>;

/**
 * The freee MCP server's write ledger as it stood when the run ended (completed, failed or cancelled): which
 * approved write steps reached freee, so the card says what was written — and that nothing else was.
 */
export const RunWritesSchema = z.object({
  /** Written by this run. */
  done: z.array(z.string()),
  /** Written by an earlier run of the task (a rerun does not repeat them). */
  earlier: z.array(z.string()),
  /** May have reached freee; reading back could not tell (WriteOutcomeUnknownError). */
  unknown: z.array(z.string()),
  records: z.array(FreeeRecordRefSchema),
  readAt: isoTime,
});
export type RunWrites = z.infer<typeof RunWritesSchema>;

/** The failures the freee MCP server stamps on a run (the connection failed, or acts on another company now). */
export const RUN_FAULT_ERRORS = ["AuthError", "FreeeCompanyChangedError", "FreeeThrottledError"] as const;

export const ExecutionSchema = z.object({
  taskId: z.string().check(z.minLength(1)),
  executionNo: z.int().check(z.positive()),
  /** Stable id: `<taskId>-e<no>`; also the ExecutionRun execution name. */
  executionId: z.string().check(z.minLength(1)),
  processVersion: z.int().check(z.positive()),
  /** The company the approved Process was previewed against (copied at creation): the only one the run may act on. */
  company: z.optional(PreviewCompanySchema),
  status: z.enum(EXECUTION_STATUSES),
  sessionId: z.optional(z.string().check(z.minLength(1))),
  cardTs: z.optional(slackTs),
  startedBy: z.string().check(z.minLength(1)),
  cancelledBy: z.optional(z.string().check(z.minLength(1))),
  cancelledAt: z.optional(isoTime),
  /** Set by ExecutionRun once it has sent the interrupt after a cancel: the card goes from 中止中... to 中止. */
  cancelFinalizedAt: z.optional(isoTime),
  /** `execution.started`, promised by the record's creation, before StartExecution. */
  startAudit: z.optional(PendingAuditSchema),
  /** `execution.cancelled`, promised by the cancel write, before the run sees it. */
  cancelAudit: z.optional(PendingAuditSchema),
  progress: z.optional(ExecutionProgressSchema),
  /**
   * A failure the freee MCP server saw during the run that no tool result can recover from: the workspace's freee
   * connection failed (AuthError — refresh refused, not connected), or it acts on another company than the approved
   * one (FreeeCompanyChangedError). The next poll ends the run with it.
   */
  fault: z.optional(z.object({ errorName: z.enum(RUN_FAULT_ERRORS), at: isoTime, tool: z.string().check(z.minLength(1)), reason: z.optional(z.string()) })),
  /** The L4 completion contract's verdict (lib/steps/run-completion.ts): which approved writes the MCP server recorded done. */
  completion: z.optional(ExecutionCompletionSchema),
  resultSummary: z.optional(z.string()),
  /** The write ledger at the end of the run. */
  writes: z.optional(RunWritesSchema),
  /** Read results too long for the card, attached to the thread as CSV files (by step). */
  resultFiles: z.optional(z.array(z.object({ stepId: z.string().check(z.minLength(1)), fileId: z.string().check(z.minLength(1)) }))),
  /**
   * Results with HR personal data of a run in a public channel: sent to the requester instead (a DM), and which
   * steps; the thread's card says where they went and shows none of them.
   */
  privateDelivery: z.optional(
    z.object({
      to: z.literal("requester_dm"),
      requesterId: z.string().check(z.minLength(1)),
      /** The DM's channel; absent when Slack refused the DM (the card says so; nothing went to the thread). */
      channelId: z.optional(z.string().check(z.minLength(1))),
      stepIds: z.array(z.string()),
      /** The summary too (the agent's words may repeat the data). */
      summary: z.boolean(),
      files: z.array(z.object({ stepId: z.string().check(z.minLength(1)), fileId: z.string().check(z.minLength(1)) })),
      at: isoTime,
    }),
  ),
  errorName: z.optional(z.string()),
  errorMessage: z.optional(z.string()),
  /**
   * Why the Managed Agents session failed (AgentRunFailedError.reason), written by the poll that saw it before it
   * threw: Lambda's error envelope carries only a name and a message, so the failure recorder reads it here.
   */
  agentFailure: z.optional(z.object({ reason: z.string().check(z.minLength(1)), details: z.optional(z.record(z.string(), z.unknown())) })),
  usage: z.optional(TokenUsageSchema),
  startedAt: z.optional(isoTime),
  endedAt: z.optional(isoTime),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type Execution = z.infer<typeof ExecutionSchema>;


export const AuditEntrySchema = z.object({
  taskId: z.optional(z.string().check(z.minLength(1))),
  teamId: z.string().check(z.minLength(1)),
  /** Derived from action + subject (+ version/attempt): a retried step writes the same key once. */
  auditKey: z.string().check(z.minLength(1)),
  at: isoTime,
  action: z.string().check(z.regex(/^[a-z_]+(\.[A-Za-z0-9_]+)+$/, "action looks like task.created or error.L3")),
  actor: z.string().check(z.minLength(1)),
  layer: z.optional(z.enum(LAYERS)),
  errorType: z.optional(z.string()),
  errorMessage: z.optional(z.string()),
  details: z.record(z.string(), z.unknown()),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** Task id and pipeline execution name derive from (team, channel, ts): one message → one task. */
export function taskIdFor(thread: Pick<SlackThread, "teamId" | "channelId" | "messageTs">): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9]/g, "");
  return `${safe(thread.teamId)}-${safe(thread.channelId)}-${thread.messageTs.replace(".", "_")}`;
}

export function executionIdFor(taskId: string, executionNo: number): string {
  return `${taskId}-e${executionNo}`;
}
