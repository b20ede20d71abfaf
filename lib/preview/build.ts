import type { ProcessStep, SlackFileRef } from "../core/domain/records";
import { describeUpload } from "./upload";
import type { ChangeRow, DroppedStep, PreviewStep, PreviewWarning, ProcessPreview } from "../core/domain/preview";
import { isWriteStep, toolSummary, UPLOAD_RECEIPT_TOOL } from "../freee/tools/summaries";
import { DESCRIBERS, undescribed, type Described } from "./describe";
import { describeGeneric } from "./generic";
import { jstMonth, monthOf } from "./format";
import { resolveNames, type StepWithNames } from "./names";
import type { FreeeReader } from "./reader";
import { rowsFromChanges } from "./rows";
import { unresolvedRows, unresolvedSummary } from "./unresolved";
import { DEFAULT_WARNING_THRESHOLDS, isNoOp, jstToday, noOpWarning, stepWarnings, type StepFacts, type WarningThresholds } from "./warnings";

/**
 * The preview of a Process (docs/architecture.md, pipeline): for each write step, names resolved to ids (written into the step's input)
 * and what the write will change, read from freee, as the rows of a change table with the warnings they raise.
 * A write that would change nothing is taken out of the plan (never approved). Read steps pass through untouched.
 */
export interface PreviewOutcome {
  /** The steps as they will be approved and run: resolved ids in place, no-op writes taken out. */
  steps: ProcessStep[];
  preview: ProcessPreview;
}

/** What the request gives the preview beyond the steps: the files it shared (an upload shows the one it sends). */
export interface PreviewContext {
  attachments?: readonly SlackFileRef[];
  /** When a change counts as large (the limits; DEFAULT_WARNING_THRESHOLDS without). */
  thresholds?: WarningThresholds;
}

interface Previewed {
  step: ProcessStep;
  preview?: PreviewStep;
  facts?: StepFacts;
}

export async function buildPreview(steps: readonly StepWithNames[], reader: FreeeReader, now: Date, context: PreviewContext = {}): Promise<PreviewOutcome> {
  const ordered = [...steps].sort((a, b) => a.order - b.order);
  const out: Previewed[] = await Promise.all(ordered.map((step) => (isWriteStep(step) ? previewWrite(step, reader, now, context) : { step })));
  // After the reads: the company they were made in (a plan of reads alone is bound to its company too).
  const company = await reader.connectedCompany();
  const writes = out.filter((o): o is Previewed & { preview: PreviewStep } => o.preview !== undefined);
  const noOps = writes.filter((o) => o.preview.problems.length === 0 && isNoOp(o.preview.rows ?? [], o.preview.current));
  const kept = out.filter((o) => !noOps.includes(o as (typeof noOps)[number]));
  const warningContext = { today: jstToday(now), thresholds: context.thresholds ?? DEFAULT_WARNING_THRESHOLDS };
  const warnings: PreviewWarning[] = [];
  for (const o of writes) {
    if (noOps.includes(o)) warnings.push(noOpWarning(o.step.stepId, o.step.order, o.preview.title, o.preview.rows ?? []));
    else if (o.preview.problems.length === 0) warnings.push(...stepWarnings(o.step.stepId, o.preview.rows ?? [], o.facts ?? {}, warningContext));
  }
  const dropped: DroppedStep[] = noOps.map((o) => {
    const path = typeof o.step.toolInput.path === "string" && o.step.toolInput.path !== "" ? { path: o.step.toolInput.path } : {};
    return { stepId: o.step.stepId, order: o.step.order, tool: o.step.tool, ...path, title: o.preview.title, rows: o.preview.rows ?? [] };
  });
  const problems = writes.some((o) => o.preview.problems.length > 0);
  const nothingLeft = writes.length > 0 && noOps.length === writes.length;
  return {
    // A version keeps at least one step (its schema): a plan of no-ops alone stays whole, and cannot be approved.
    steps: (kept.length === 0 ? out : kept).map((o) => o.step),
    preview: {
      status: problems ? "blocked" : nothingLeft ? "no_changes" : "ready",
      previewedAt: now.toISOString(),
      steps: kept.flatMap((o) => (o.preview === undefined ? [] : [o.preview])),
      reads: reader.reads,
      company,
      warnings,
      dropped,
    },
  };
}

async function previewWrite(step: StepWithNames, reader: FreeeReader, now: Date, context: PreviewContext): Promise<Previewed> {
  const names = await resolveNames(step, reader, monthFor(step.toolInput, now));
  const resolvedStep: ProcessStep = { ...step, toolInput: names.toolInput };
  const tool = toolSummary(step.tool);
  const title = tool?.method === undefined ? sentence(tool?.description ?? step.tool) : `${tool.method} ${String(step.toolInput.path)}`;
  let described: Described;
  if (names.problems.length > 0) {
    const rows = unresolvedRows(step);
    described = {
      title: DESCRIBED_TITLES[step.tool] ?? title,
      summary: unresolvedSummary(rows, names.problems),
      details: [],
      changes: [],
      rows,
      current: "unreadable",
      currentNote: "名前が freee で確認できるまで、現在の値は読み取りません。",
      warnings: [],
    };
  } else {
    const describe = DESCRIBERS[step.tool];
    if (step.tool === UPLOAD_RECEIPT_TOOL) described = describeUpload(names.toolInput, context.attachments ?? []);
    else if (tool?.method !== undefined) described = await describeGeneric(tool.method, names.toolInput, reader);
    else described = describe === undefined ? undescribed(step.tool, tool?.description) : await describe(names.toolInput, reader);
  }
  const { facts, targetName, ...shown } = described;
  const effective = effectiveOf(names.toolInput);
  const rows: ChangeRow[] = shown.rows ?? rowsFromChanges(shown.changes, targetOf(step, shown.title, targetName), effective);
  const preview: PreviewStep = { stepId: step.stepId, tool: step.tool, ...shown, rows, resolved: names.resolved, problems: names.problems };
  return { step: resolvedStep, preview, facts: facts ?? (effective === undefined ? {} : { effectiveDate: effective }) };
}

/** The titles the describers give, for a step whose names are not confirmed (its describer did not run). */
const DESCRIBED_TITLES: Readonly<Record<string, string>> = {
  freee_hr_update_basic_pay_rule: "基本給の変更",
  freee_hr_update_work_record: "勤怠の更新",
  freee_accounting_create_deal: "取引の作成",
  [UPLOAD_RECEIPT_TOOL]: "ファイルボックスへのアップロード",
};

function sentence(description: string): string {
  return description.replace(/（[^）]*API）。?.*$/, "").replace(/。$/, "");
}

/** 対象 of a write without rows of its own: the record its path names (a generic write), or what it makes. */
function targetOf(step: ProcessStep, title: string, name: string | undefined): Pick<ChangeRow, "target" | "targetKind"> {
  if (step.tool === UPLOAD_RECEIPT_TOOL) return { targetKind: "other", target: "証憑ファイル（新規）" };
  const path = typeof step.toolInput.path === "string" ? step.toolInput.path : undefined;
  if (path === undefined) return { targetKind: "other", target: title };
  // The record's id is the first number after the API's own prefix (/api/1's 1 is a version, not an id).
  const id = /\/(\d+)(?:\/|$)/.exec(path.replace(/^\/(?:api\/1|hr\/api\/v1|iv)(?=\/)/, ""))?.[1];
  const kind: ChangeRow["targetKind"] = /\/deals(\/|$)/.test(path) ? "deal" : /\/partners(\/|$)/.test(path) ? "partner" : /\/employees(\/|$)/.test(path) ? "employee" : "other";
  const noun = { deal: "取引", partner: "取引先", employee: "従業員", other: title }[kind];
  if (id === undefined) return { targetKind: kind, target: `${noun}（新規）` };
  return { targetKind: kind, target: name === undefined ? `${noun} ID ${id}` : `${noun} ${name}（ID ${id}）` };
}

/** 適用 of a write without rows of its own: the date its input names, if any. */
function effectiveOf(input: Record<string, unknown>): string | undefined {
  const body = (input.body ?? {}) as Record<string, unknown>;
  const date = [input.date, input.issue_date, body.issue_date, body.billing_date, body.date].find((d): d is string => typeof d === "string" && /^\d{4}-\d{2}-\d{2}$/.test(d));
  return date;
}

/** The month a name is looked up in: the step's own year/month or date, else this month (JST). */
function monthFor(input: Record<string, unknown>, now: Date): { year: number; month: number } {
  const year = Number(input.year);
  const month = Number(input.month);
  if (Number.isInteger(year) && Number.isInteger(month) && month >= 1 && month <= 12) return { year, month };
  const fromDate = typeof input.date === "string" ? monthOf(input.date) : typeof input.issue_date === "string" ? monthOf(input.issue_date) : undefined;
  return fromDate ?? jstMonth(now);
}
