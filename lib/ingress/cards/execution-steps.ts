import type { PreviewStep } from "../../core/domain/preview";
import type { Execution, ProcessStep, ProcessVersion, ReadTable, StepProgress } from "../../core/domain/records";
import { CARD_TABLE_ROWS } from "../../model/agent/step-results";
import { freeeRecordUrl, recordNamedByWrite } from "../../freee/web-links";
import { ExecutionCardTexts as T } from "../../core/messages/ja";
import { chunk, sortedSteps } from "../../preview/plan";
import { AGENT_DECIDE, isWriteStep, toolSummary } from "../../freee/tools/summaries";
import { inlineMrkdwn, wholeSection, type Card } from "./blocks";
import { resultTableText } from "./result-table";

/**
 * The Execution card's body: one line per approved step with its state and a one-line result; once
 * the run has ended, what changed in freee (the preview's before → after of each write the MCP server recorded
 * done, linked to the record where freee has a page for it), what the reads returned, and — for a run that
 * stopped — what ran and what was written. Every part is bounded so the card stays within Block Kit's limits
 * (50 blocks, 3,000 characters per section) whatever the plan's length.
 */

export type StepState = "waiting" | "running" | "done" | "failed" | "not_run";
const STATE_MARK: Record<StepState, string> = { waiting: "待機", running: "実行中", done: "✓", failed: "✗", not_run: "未実行" };

export interface StepLine {
  step: ProcessStep;
  state: StepState;
  note?: string;
  table?: ReadTable;
}

/** Blocks the body may use at most (the card's header, status, buttons and context take the rest of 50). */
export const BODY_MAX_BLOCKS = 40;
const STEP_BLOCKS = 12;
const TABLE_BLOCKS = 6;
const CHANGE_BLOCKS = 8;
/** A table's text in its section, leaving room for its heading and the note under it. */
const TABLE_TEXT_MAX = 2400;

const live = (e: Execution) => e.status === "pending" || e.status === "running";

/** Where each approved step stands: the session's events while running; at the end, the write ledger for writes. */
export function stepLines(process: ProcessVersion, execution: Execution): StepLine[] {
  const seen = new Map((execution.progress?.steps ?? []).map((s) => [s.stepId, s]));
  const writes = execution.writes;
  return sortedSteps(process).map((step) => lineOf(step, seen.get(step.stepId), execution, writes));
}

function lineOf(step: ProcessStep, seen: StepProgress | undefined, execution: Execution, writes: Execution["writes"]): StepLine {
  const write = isWriteStep(step);
  if (write && writes?.earlier.includes(step.stepId)) return { step, state: "done", note: T.doneEarlier };
  if (write && writes?.done.includes(step.stepId)) return { step, state: "done", note: T.written };
  if (write && writes?.unknown.includes(step.stepId)) return { step, state: "failed", note: T.writeUnknown };
  const base = { step, ...(seen?.note === undefined ? {} : { note: seen.note }), ...(seen?.table === undefined ? {} : { table: seen.table }) };
  if (live(execution)) return { ...base, state: seen === undefined ? "waiting" : seen.state };
  if (seen === undefined) return { step, state: "not_run" };
  // The run has ended. A write the ledger does not show as done did not reach freee, whatever the agent said.
  if (write && writes !== undefined && seen.state === "done") return { step, state: "failed", note: T.notRecorded };
  if (seen.state === "running") return { ...base, state: "failed", note: execution.status === "cancelled" ? T.stoppedByCancel : T.stoppedByFailure };
  return { ...base, state: seen.state };
}

export function stepTitle(step: ProcessStep, preview: PreviewStep | undefined): string {
  if (step.tool === AGENT_DECIDE) return "エージェントの判断";
  if (preview !== undefined) return preview.title;
  const description = toolSummary(step.tool)?.description ?? step.tool;
  return description.replace(/（[^）]*API）。?.*$/, "").replace(/。$/, "");
}

const previewOf = (process: ProcessVersion, stepId: string) => process.preview?.steps.find((p) => p.stepId === stepId);

/** One line per step, in as many sections as they need (at most STEP_BLOCKS; the rest is counted). */
export function stepBlocks(process: ProcessVersion, lines: readonly StepLine[]): Card["blocks"] {
  const text = lines
    .map((l) => `${STATE_MARK[l.state]}  ${l.step.order}. ${inlineMrkdwn(stepTitle(l.step, previewOf(process, l.step.stepId)))}${l.note === undefined ? "" : ` — ${inlineMrkdwn(l.note)}`}`)
    .join("\n");
  return bounded(chunk(`*ステップ*\n${text}`), STEP_BLOCKS, (rest) => T.moreSteps(rest));
}

/** What changed in freee: each write this run recorded done, as the approver saw it before (before → after). */
export function changeBlocks(process: ProcessVersion, execution: Execution): Card["blocks"] {
  const writes = execution.writes;
  if (writes === undefined) return execution.status === "completed" ? [] : [wholeSection(T.writesUnreadable)];
  const lines = writes.done.map((stepId) => {
    const record = writes.records.find((r) => r.stepId === stepId);
    const link = record === undefined ? "" : ` <${freeeRecordUrl(record)}|${T.openInFreee}>`;
    return `✓ ${inlineMrkdwn(changeInWords(process, stepId))}${link}`;
  });
  // A write that may have landed is shown as such, with the change in words and where freee shows it: never
  // beside 「freee への書き込みはありません」.
  const maybe = writes.unknown.map((stepId) => {
    const record = recordOfStep(process, stepId);
    const where = record === undefined ? "" : ` <${freeeRecordUrl(record)}|${T.openInFreee}>`;
    return `:warning: ${inlineMrkdwn(changeInWords(process, stepId))} — ${T.writeUnknown}${where}`;
  });
  const head = execution.status === "completed" ? T.changedHead : T.writtenBeforeStopHead;
  const all = [...lines, ...maybe];
  const body = all.length === 0 ? T.noWrites : `${all.join("\n")}\n${T.nothingElse}`;
  return bounded(chunk(`*${head}*\n${body}`), CHANGE_BLOCKS, (rest) => T.moreSections(rest));
}

function changeInWords(process: ProcessVersion, stepId: string): string {
  return previewOf(process, stepId)?.summary ?? stepTitle(process.steps?.find((s) => s.stepId === stepId) ?? { stepId, order: 0, tool: stepId, toolInput: {} }, undefined);
}

/** The freee record a write step names in its approved input (an employee), where freee has a page for it. */
function recordOfStep(process: ProcessVersion, stepId: string) {
  const step = process.steps?.find((s) => s.stepId === stepId);
  return step === undefined ? undefined : recordNamedByWrite(step);
}

/** What the reads returned: a short table per read step (the first rows), its size, and where the rest is. */
export function tableBlocks(lines: readonly StepLine[], csvSteps: ReadonlySet<string> = new Set()): Card["blocks"] {
  const blocks = lines.flatMap((l) => {
    if (l.table === undefined || l.state !== "done") return [];
    const t = l.table;
    const head = `*${l.step.order}. ${inlineMrkdwn(t.label)}（${t.total} 件）*`;
    if (t.columns.length === 0 || t.rows.length === 0) return [wholeSection(`${head}\n${T.emptyResult}`)];
    return [wholeSection(resultTableText(head, t, CARD_TABLE_ROWS, TABLE_TEXT_MAX, (rest) => (csvSteps.has(l.step.stepId) ? T.restInCsv(rest) : T.restNotShown(rest))))];
  });
  return blocks.length <= TABLE_BLOCKS ? blocks : [...blocks.slice(0, TABLE_BLOCKS - 1), wholeSection(T.moreTables(blocks.length - TABLE_BLOCKS + 1))];
}

/** A run that stopped: which steps ran and which did not. */
export function ranBlocks(lines: readonly StepLine[]): Card["blocks"] {
  const ran = lines.filter((l) => l.state === "done" || l.state === "failed").map((l) => l.step.stepId);
  const notRun = lines.filter((l) => l.state === "not_run" || l.state === "waiting").map((l) => l.step.stepId);
  return bounded(chunk(T.ranSummary(ran, notRun)), 2, (rest) => T.moreSections(rest));
}

function bounded(texts: readonly string[], max: number, more: (rest: number) => string): Card["blocks"] {
  if (texts.length <= max) return texts.map((t) => wholeSection(t));
  return [...texts.slice(0, max - 1).map((t) => wholeSection(t)), wholeSection(more(texts.length - max + 1))];
}
