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

export const ProcessPreviewSchema = z.object({
  /** `blocked`: some write step has a problem; the version can only be rejected. */
  status: z.enum(["ready", "blocked"]),
  previewedAt: z.string().check(z.minLength(1)),
  /** One entry per write step, in step order. Read steps need no preview. */
  steps: z.array(PreviewStepSchema),
  /** freee reads made (the budget is bounded: lib/preview/reader.ts). */
  reads: z.int().check(z.nonnegative()),
  /** Absent only on a preview stored before the company was recorded: such a plan runs nothing (fails closed). */
  company: z.optional(PreviewCompanySchema),
});
export type ProcessPreview = z.infer<typeof ProcessPreviewSchema>;
