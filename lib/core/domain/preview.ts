import * as z from "zod/mini";

/**
 * What the approver is shown of each write step before approving (the Preview row): read from freee
 * between L3 and the Process card, stored on the Process version, so the card, the approval and — after the run —
 * the Execution card (before → after) all show the same facts. Text is Japanese, ready to show; the structured
 * `changes` carry the same facts for a later comparison with what the run did.
 */

/** One value the write changes: `before` is what freee holds now (absent for a create or when unreadable). */
export const PreviewChangeSchema = z.object({
  label: z.string().check(z.minLength(1)),
  before: z.optional(z.string()),
  after: z.string(),
});
export type PreviewChange = z.infer<typeof PreviewChangeSchema>;

/** A name from the request resolved against freee to the id the write will use (stored in the step's input). */
export const ResolvedNameSchema = z.object({
  field: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  id: z.int().check(z.positive()),
  /** freee's own name for the record (「山田 太郎」). */
  label: z.string().check(z.minLength(1)),
});
export type ResolvedName = z.infer<typeof ResolvedNameSchema>;

/**
 * Why a write step cannot be approved as it is: a name that matches nothing or more than one record in freee,
 * or a field names cannot stand for. The card says so; a rejection reason settles it and L3 regenerates.
 */
export const PreviewProblemSchema = z.object({
  kind: z.enum(["unknown_name", "ambiguous_name", "unresolvable_field", "name_id_mismatch"]),
  field: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  /** Up to five candidates for an ambiguous name. */
  candidates: z.optional(z.array(z.object({ id: z.int(), label: z.string() }))),
  message: z.string().check(z.minLength(1)),
});
export type PreviewProblem = z.infer<typeof PreviewProblemSchema>;

/**
 * One row of the change table the approver reads: 対象 · 項目 · 現在 → 変更後 · 差額 · 適用. Ready-to-show Japanese,
 * with the difference as numbers too (the warnings are computed from them, lib/preview/warnings.ts).
 */
export const ChangeRowSchema = z.object({
  targetKind: z.enum(["employee", "partner", "deal", "other"]),
  /** 「従業員 佐藤 花子」「取引（新規）取引先 東京タクシー」 */
  target: z.string().check(z.minLength(1)),
  /** 項目: 「基本給」「給与形態」「明細 1 旅費交通費（課対仕入10%）」 */
  label: z.string().check(z.minLength(1)),
  /** 現在: what freee holds (absent: a create, or the value could not be read — `current` says which). */
  before: z.optional(z.string()),
  after: z.string(),
  /** 差額 in yen, when before and after are amounts of the same kind (a create: the amount itself). */
  diffYen: z.optional(z.number()),
  /** 差額 in percent of the current amount (absent for a create or a current amount of 0). */
  diffPercent: z.optional(z.number()),
  /** 適用: 「2027年1月支給分から」「2026-12-01」. */
  effective: z.optional(z.string()),
});
export type ChangeRow = z.infer<typeof ChangeRowSchema>;

/**
 * What the approver must not miss, computed by the preview from freee's current values (lib/preview/warnings.ts).
 * `no_op` is a step dropped from the plan (never approved); the others stay in the plan and are repeated in the
 * approve button's confirm dialog. A second-approver policy reads them by kind.
 */
export const PREVIEW_WARNING_KINDS = ["decrease", "pay_type_change", "large_change", "no_op", "past_date", "retired_employee"] as const;
export type PreviewWarningKind = (typeof PREVIEW_WARNING_KINDS)[number];
export const PreviewWarningSchema = z.object({
  kind: z.enum(PREVIEW_WARNING_KINDS),
  stepId: z.string().check(z.minLength(1)),
  /** The row of the step's change table it is about (absent: the step as a whole). */
  row: z.optional(z.int().check(z.nonnegative())),
  /** One line, shown after ⚠️ on the card. */
  message: z.string().check(z.minLength(1)),
  /** The same in a few words, for the confirm dialog (Slack allows 300 characters for all of them). */
  short: z.string().check(z.minLength(1)),
});
export type PreviewWarning = z.infer<typeof PreviewWarningSchema>;

export const PreviewStepSchema = z.object({
  stepId: z.string().check(z.minLength(1)),
  tool: z.string().check(z.minLength(1)),
  /** 「基本給の変更」 */
  title: z.string().check(z.minLength(1)),
  /** The one line the approver reads: 「山田 太郎 基本給 280,000円 → 300,000円（2027年1月支給分から）」. */
  summary: z.string().check(z.minLength(1)),
  /** Further lines (deal details, break times). */
  details: z.array(z.string()),
  changes: z.array(PreviewChangeSchema),
  /** `read`: the current values were read; `unreadable`: they could not be (see currentNote); `none`: a create. */
  current: z.enum(["read", "unreadable", "none"]),
  currentNote: z.optional(z.string()),
  resolved: z.array(ResolvedNameSchema),
  /** Shown plainly, do not stop approval (an id freee does not know: the run would be refused by freee). */
  warnings: z.array(z.string()),
  problems: z.array(PreviewProblemSchema),
  /** The change table's rows (absent on a preview stored before the table: the card shows `summary`). */
  rows: z.optional(z.array(ChangeRowSchema)),
});
export type PreviewStep = z.infer<typeof PreviewStepSchema>;

/**
 * The freee company the preview read (the workspace's connection then): the approval is of this company's data,
 * and the freee MCP server serves the run only while the connection still acts on it (lib/mcp/tool-call.ts).
 */
export const PreviewCompanySchema = z.object({
  id: z.int().check(z.positive()),
  /** freee's display name, as stored with the connection (absent when freee gave none). */
  name: z.optional(z.string().check(z.minLength(1))),
});
export type PreviewCompany = z.infer<typeof PreviewCompanySchema>;

/** A write step the preview took out of the plan: it would change nothing (freee already holds the values). */
export const DroppedStepSchema = z.object({
  stepId: z.string().check(z.minLength(1)),
  order: z.int().check(z.positive()),
  /**
   * The write's tool and, for a generic one, its path: what it would have written, which the approval policy
   * still counts (a card showing an employee's pay is an HR card).
   */
  tool: z.string().check(z.minLength(1)),
  path: z.optional(z.string().check(z.minLength(1))),
  title: z.string().check(z.minLength(1)),
  rows: z.array(ChangeRowSchema),
});
export type DroppedStep = z.infer<typeof DroppedStepSchema>;

export const ProcessPreviewSchema = z.object({
  /**
   * `blocked`: some write step has a problem; `no_changes`: every write step would change nothing. Either way the
   * version can only be rejected.
   */
  status: z.enum(["ready", "blocked", "no_changes"]),
  previewedAt: z.string().check(z.minLength(1)),
  /** One entry per write step, in step order. Read steps need no preview. */
  steps: z.array(PreviewStepSchema),
  /** freee reads made (the budget is bounded: lib/preview/reader.ts). */
  reads: z.int().check(z.nonnegative()),
  /** Absent only on a preview stored before the company was recorded: such a plan runs nothing (fails closed). */
  company: z.optional(PreviewCompanySchema),
  /** Every warning of the plan, in step order (absent on a preview stored before warnings: none were computed). */
  warnings: z.optional(z.array(PreviewWarningSchema)),
  /** Write steps taken out of the plan because they change nothing: not in the version's steps, never approved. */
  dropped: z.optional(z.array(DroppedStepSchema)),
});
export type ProcessPreview = z.infer<typeof ProcessPreviewSchema>;

/** The warnings of a preview (none for one stored before they were computed). */
export function previewWarnings(preview: ProcessPreview | undefined): PreviewWarning[] {
  return preview?.warnings ?? [];
}
