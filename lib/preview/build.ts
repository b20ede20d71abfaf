import type { ProcessStep, SlackFileRef } from "../core/domain/records";
import { describeUpload } from "./upload";
import type { PreviewStep, ProcessPreview } from "../core/domain/preview";
import { isWriteStep, toolSummary, UPLOAD_RECEIPT_TOOL } from "../freee/tools/summaries";
import { DESCRIBERS, undescribed, type Described } from "./describe";
import { describeGeneric } from "./generic";
import { jstMonth, monthOf } from "./format";
import { resolveNames, type StepWithNames } from "./names";
import type { FreeeReader } from "./reader";

/**
 * The preview of a Process (docs/architecture.md, pipeline): for each write step, names resolved to ids (written into the step's input)
 * and what the write will change, read from freee. Read steps pass through untouched: they change nothing.
 */
export interface PreviewOutcome {
  /** The steps as they will be approved and run: resolved ids in place. */
  steps: ProcessStep[];
  preview: ProcessPreview;
}

/** A write step, as the MCP server judges it: by its tool (an unknown tool counts as one, and is shown whole). */
/** What the request gives the preview beyond the steps: the files it shared (an upload shows the one it sends). */
export interface PreviewContext {
  attachments?: readonly SlackFileRef[];
}

export async function buildPreview(steps: readonly StepWithNames[], reader: FreeeReader, now: Date, context: PreviewContext = {}): Promise<PreviewOutcome> {
  const ordered = [...steps].sort((a, b) => a.order - b.order);
  const out = await Promise.all(ordered.map((step) => (isWriteStep(step) ? previewWrite(step, reader, now, context) : { step, preview: undefined })));
  const previewSteps = out.flatMap((o) => (o.preview === undefined ? [] : [o.preview]));
  // After the reads: the company they were made in (a plan of reads alone is bound to its company too).
  const company = await reader.connectedCompany();
  return {
    steps: out.map((o) => o.step),
    preview: {
      status: previewSteps.some((p) => p.problems.length > 0) ? "blocked" : "ready",
      previewedAt: now.toISOString(),
      steps: previewSteps,
      reads: reader.reads,
      company,
    },
  };
}

async function previewWrite(step: StepWithNames, reader: FreeeReader, now: Date, context: PreviewContext): Promise<{ step: ProcessStep; preview: PreviewStep }> {
  const names = await resolveNames(step, reader, monthFor(step.toolInput, now));
  const resolvedStep: ProcessStep = { ...step, toolInput: names.toolInput };
  const tool = toolSummary(step.tool);
  const title = tool?.method === undefined ? (tool?.description ?? step.tool) : `${tool.method} ${String(step.toolInput.path)}`;
  let described: Described;
  if (names.problems.length > 0) {
    described = {
      title,
      summary: `${title}（名前を freee の ID に解決できないため、内容を確定できません）`,
      details: [],
      changes: [],
      current: "unreadable",
      currentNote: "名前が解決されるまで現在の値は読み取りません。",
      warnings: [],
    };
  } else {
    const describe = DESCRIBERS[step.tool];
    if (step.tool === UPLOAD_RECEIPT_TOOL) described = describeUpload(names.toolInput, context.attachments ?? []);
    else if (tool?.method !== undefined) described = await describeGeneric(tool.method, names.toolInput, reader);
    else described = describe === undefined ? undescribed(step.tool, tool?.description) : await describe(names.toolInput, reader);
  }
  return { step: resolvedStep, preview: { stepId: step.stepId, tool: step.tool, ...described, resolved: names.resolved, problems: names.problems } };
}

/** The month a name is looked up in: the step's own year/month or date, else this month (JST). */
function monthFor(input: Record<string, unknown>, now: Date): { year: number; month: number } {
  const year = Number(input.year);
  const month = Number(input.month);
  if (Number.isInteger(year) && Number.isInteger(month) && month >= 1 && month <= 12) return { year, month };
  const fromDate = typeof input.date === "string" ? monthOf(input.date) : typeof input.issue_date === "string" ? monthOf(input.issue_date) : undefined;
  return fromDate ?? jstMonth(now);
}
