import * as z from "zod/mini";
import { AttachmentsSchema, SlackThreadSchema } from "../../core/domain/records";
import { RecordedApprovalSchema } from "../../core/domain/approval-policy";

/**
 * The inputs the two state machines are started with, and the payload an approval resumes them with.
 * Nothing per-delivery (event_id, retry number) is in them: StartExecution with a taken name and the same
 * input starts nothing, which is how a redelivered Slack event creates no second task.
 */
export const TaskPipelineInputSchema = z.object({
  thread: SlackThreadSchema,
  requesterId: z.string().check(z.minLength(1)),
  requestText: z.string().check(z.minLength(1)),
  attachments: z.optional(AttachmentsSchema),
});
export type TaskPipelineInput = z.infer<typeof TaskPipelineInputSchema>;

export const ExecutionRunInputSchema = z.object({
  taskId: z.string().check(z.minLength(1)),
  executionNo: z.int().check(z.positive()),
  /**
   * The Process version the Execution runs (its record's `processVersion`), so StartSession reads it with the task
   * and the Execution in one request. Absent in a run started before the field existed: StartSession reads it then.
   */
  processVersion: z.optional(z.int().check(z.positive())),
});
export type ExecutionRunInput = z.infer<typeof ExecutionRunInputSchema>;

/** What SendTaskSuccess carries back to a waiting approval state. */
export const ApprovalOutcomeSchema = z.object({
  decision: z.enum(["approved", "rejected"]),
  reason: z.optional(z.string()),
  actorId: z.string().check(z.minLength(1)),
  /** A Process approval: where the approver saw the plan whole (the card, or the full-plan modal). */
  via: z.optional(z.enum(["card", "full_plan"])),
  /** The approval policy's rule that allowed the decision (the audit entry names it). */
  rule: z.optional(z.string().check(z.minLength(1))),
  /** A two-person plan: the approvals recorded before this one. */
  earlierApprovals: z.optional(z.array(RecordedApprovalSchema)),
});
export type ApprovalOutcome = z.infer<typeof ApprovalOutcomeSchema>;
