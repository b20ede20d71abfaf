import { z } from "zod";
import { EXECUTION_STATUSES, TASK_STATUSES, VERSION_STATUSES } from "./status";

/** zod schemas for what the table holds (DESIGN §4). Types are inferred from them: one source of truth. */

const isoTime = z.string().min(1);
const slackTs = z.string().regex(/^\d+\.\d+$/, "Slack ts looks like 1700000000.000100");

export const SlackThreadSchema = z.object({
  teamId: z.string().min(1),
  enterpriseId: z.string().min(1).optional(),
  channelId: z.string().min(1),
  /** ts of the user's message; the thread all cards go to. */
  messageTs: slackTs,
});
export type SlackThread = z.infer<typeof SlackThreadSchema>;

/** L1's structured reading of the request (what a planner needs). */
export const TaskSpecSchema = z.object({
  title: z.string().min(1),
  intent: z.string().min(1),
  domain: z.enum(["hr", "accounting", "other"]),
  parameters: z.record(z.string(), z.unknown()),
  missingInformation: z.array(z.string()),
});
export type TaskSpec = z.infer<typeof TaskSpecSchema>;

export const CardRefsSchema = z.object({
  task: slackTs.optional(),
  prompt: slackTs.optional(),
  process: slackTs.optional(),
});
export type CardRefs = z.infer<typeof CardRefsSchema>;

export const TaskSchema = z.object({
  taskId: z.string().min(1),
  thread: SlackThreadSchema,
  requesterId: z.string().min(1),
  requestText: z.string().min(1),
  status: z.enum(TASK_STATUSES),
  spec: TaskSpecSchema.optional(),
  currentPromptVersion: z.number().int().nonnegative(),
  currentProcessVersion: z.number().int().nonnegative(),
  /** Approved Process version the executions run (set when the Process is approved). */
  approvedProcessVersion: z.number().int().positive().optional(),
  executionCount: z.number().int().nonnegative(),
  cards: CardRefsSchema,
  pipelineExecutionName: z.string().min(1),
  /** Why the task is `failed` (L1–L3) — the card shows the seed §9.1 message of that layer. */
  failure: z.object({ layer: z.enum(["L1", "L2", "L3", "L4"]), errorName: z.string().min(1), at: isoTime }).optional(),
  /** Why the task is `closed`. */
  closedReason: z.enum(["regeneration_limit", "approval_expired"]).optional(),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type Task = z.infer<typeof TaskSchema>;

export const DecisionSchema = z.object({
  decision: z.enum(["approved", "rejected"]),
  reason: z.string().optional(),
  actorId: z.string().min(1),
  decidedAt: isoTime,
});
export type Decision = z.infer<typeof DecisionSchema>;

const versionBase = {
  taskId: z.string().min(1),
  version: z.number().int().positive(),
  status: z.enum(VERSION_STATUSES),
  /** Set while pending_approval; removed once decided. Never placed in a button. */
  taskToken: z.string().min(1).optional(),
  /** Reason that made this version (the previous version's rejection reason). */
  regeneratedFor: z.string().min(1).optional(),
  decision: DecisionSchema.optional(),
  errorName: z.string().optional(),
  createdAt: isoTime,
  updatedAt: isoTime,
};

export const PromptVersionSchema = z.object({
  ...versionBase,
  kind: z.literal("prompt"),
  text: z.string().min(1).optional(),
});
export type PromptVersion = z.infer<typeof PromptVersionSchema>;

/**
 * What an `agent_decide` step may read (DESIGN §7): these read tools, and for the free-form GET only paths under
 * these prefixes. An agent_decide step never writes.
 */
export const ReadScopeSchema = z.object({
  tools: z.array(z.string().min(1)).min(1),
  pathPrefixes: z.array(z.string().min(1)).optional(),
});
export type ReadScope = z.infer<typeof ReadScopeSchema>;

/**
 * A value of a write step the request gave as a name (「山田さん」, 「消耗品費」): `field` is its dotted path in
 * `toolInput` (`employee_id`, `details.0.account_item_id`). The step is executable only once the id is in
 * `toolInput` (resolved against freee before approval); the agent never guesses it at run time.
 */
export const NameRefSchema = z.object({ field: z.string().min(1), name: z.string().min(1) });
export type NameRef = z.infer<typeof NameRefSchema>;

/**
 * One step of a Process. `effect`, `readScope` and `nameRefs` came with the capability rules; a record written
 * before them still reads (the effect is the tool's; an agent_decide step without a scope may read nothing).
 */
export const ProcessStepSchema = z.object({
  stepId: z.string().min(1),
  order: z.number().int().positive(),
  tool: z.string().min(1),
  toolInput: z.record(z.string(), z.unknown()),
  effect: z.enum(["read", "write"]).optional(),
  readScope: ReadScopeSchema.optional(),
  nameRefs: z.array(NameRefSchema).optional(),
});
export type ProcessStep = z.infer<typeof ProcessStepSchema>;

export const ProcessVersionSchema = z.object({
  ...versionBase,
  kind: z.literal("process"),
  basedOnPromptVersion: z.number().int().positive(),
  steps: z.array(ProcessStepSchema).min(1).optional(),
});
export type ProcessVersion = z.infer<typeof ProcessVersionSchema>;

export type VersionKind = "prompt" | "process";
export type AnyVersion = PromptVersion | ProcessVersion;

export const TokenUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadInputTokens: z.number().int().nonnegative(),
  cacheCreationInputTokens: z.number().int().nonnegative(),
});
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

export const ExecutionProgressSchema = z.object({
  /** Events already processed (ids), so a poll never counts one twice. */
  seenEventIds: z.array(z.string()),
  lastEventAt: isoTime.optional(),
  currentStepId: z.string().optional(),
  currentTool: z.string().optional(),
  completedSteps: z.number().int().nonnegative(),
  toolErrors: z.array(z.object({ tool: z.string(), message: z.string() })),
  /** The steps were sent: only an idle/end_turn after this counts as done. */
  stepsSentAt: isoTime.optional(),
});
export type ExecutionProgress = z.infer<typeof ExecutionProgressSchema>;

export const ExecutionSchema = z.object({
  taskId: z.string().min(1),
  executionNo: z.number().int().positive(),
  /** Stable id: `<taskId>-e<no>`; also the ExecutionRun execution name. */
  executionId: z.string().min(1),
  processVersion: z.number().int().positive(),
  status: z.enum(EXECUTION_STATUSES),
  sessionId: z.string().min(1).optional(),
  cardTs: slackTs.optional(),
  startedBy: z.string().min(1),
  cancelledBy: z.string().min(1).optional(),
  cancelledAt: isoTime.optional(),
  /** Set by ExecutionRun once it has sent the interrupt after a cancel: the card goes from 中止中... to 中止. */
  cancelFinalizedAt: isoTime.optional(),
  progress: ExecutionProgressSchema.optional(),
  resultSummary: z.string().optional(),
  errorName: z.string().optional(),
  errorMessage: z.string().optional(),
  usage: TokenUsageSchema.optional(),
  startedAt: isoTime.optional(),
  endedAt: isoTime.optional(),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type Execution = z.infer<typeof ExecutionSchema>;

export const LAYERS = ["ingress", "L1", "L2", "L3", "L4", "freee", "slack", "admin"] as const;
export type Layer = (typeof LAYERS)[number];

export const AuditEntrySchema = z.object({
  taskId: z.string().min(1).optional(),
  teamId: z.string().min(1),
  /** Derived from action + subject (+ version/attempt): a retried step writes the same key once. */
  auditKey: z.string().min(1),
  at: isoTime,
  action: z.string().regex(/^[a-z_]+(\.[A-Za-z0-9_]+)+$/, "action looks like task.created or error.L3"),
  actor: z.string().min(1),
  layer: z.enum(LAYERS).optional(),
  errorType: z.string().optional(),
  errorMessage: z.string().optional(),
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
