import type { PreviewStep } from "../../core/domain/preview";
import type { Execution, ProcessStep, ProcessVersion, ReadTable, StepProgress } from "../../core/domain/records";
import { CARD_TABLE_ROWS } from "../../model/agent/step-results";
import { freeeRecordUrl, recordNamedByWrite } from "../../freee/web-links";
import { ExecutionCardTexts as T, FreeeCompanyChangedMessages } from "../../core/messages/ja";
import { chunk, sortedSteps } from "../../preview/plan";
import { OUTCOME_TABLE_HEAD, rowText } from "../../preview/rows";
import { PrivacyTexts } from "../../core/messages/policy";
import { AGENT_DECIDE, isWriteStep, toolSummary } from "../../freee/tools/summaries";
import { inlineMrkdwn, wholeSection, type Card } from "./blocks";
import { resultTableText } from "./result-table";

/**
 * The Execution card's body: one line per approved step with its state and a one-line result; once
 * the run has ended, the Process card's change table again with each row's outcome (✓ / ✗ / 未実行 / 確認が必要,
 * from the MCP server's write ledger, linked to the record where freee has a page for it), what the reads
 * returned, and — for a run that stopped — which steps ran. Every part is bounded so the card stays within Block
 * Kit's limits (50 blocks, 3,000 characters per section) whatever the plan's length.
 */

/** `unknown`: a write that may have reached freee (the ledger could not tell). */
export type StepState = "waiting" | "running" | "done" | "failed" | "unknown" | "not_run";
const STATE_MARK: Record<StepState, string> = { waiting: "待機", running: "実行中", done: "✓", failed: "✗", unknown: T.outcome.unknown, not_run: "未実行" };

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
  if (write && writes?.unknown.includes(step.stepId)) return { step, state: "unknown", note: T.writeUnknown };
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

/**
 * What the run did in freee: every approved write as the rows the approver saw (lib/preview/rows.ts), each with
 * its outcome, and the steps the preview took out. A write that may have landed is 確認が必要 with where freee
 * shows it, and then the card never says 「freee への書き込みはありません」.
 */
export function changeBlocks(process: ProcessVersion, execution: Execution, lines: readonly StepLine[], options: { masked?: boolean } = {}): Card["blocks"] {
  // The company the approval was for (the run acts on it only): named beside the table, as on the Process card.
  const company = execution.company ?? process.preview?.company;
  const where = company === undefined ? "" : `（${inlineMrkdwn(FreeeCompanyChangedMessages.target(company.name ?? FreeeCompanyChangedMessages.unnamed(company.id)))}）`;
  const head = `*${execution.status === "completed" ? T.changedHead : T.writtenBeforeStopHead}*${where}`;
  const writeLines = lines.filter((l) => isWriteStep(l.step));
  const dropped = (process.preview?.dropped ?? []).map((d) => `${d.order}. ${inlineMrkdwn(d.title)}（${inlineMrkdwn(d.rows.map((r) => r.target).join("、"))}）`);
  const droppedLine = dropped.length === 0 ? [] : [T.dropped(dropped)];
  if (writeLines.length === 0) return bounded(chunk([head, T.noWrites, ...droppedLine].join("\n")), CHANGE_BLOCKS, (rest) => T.moreSections(rest));
  // Without the ledger (it could not be read) a write that was tried may have landed: nothing is claimed.
  const ledgerless = execution.writes === undefined && execution.status !== "completed";
  const outcomes = writeLines.map((l) => ({ line: l, outcome: outcomeOf(l.state, ledgerless) }));
  const body = options.masked === true ? [] : [`_${OUTCOME_TABLE_HEAD}_`];
  for (const { line, outcome } of outcomes) {
    const preview = previewOf(process, line.step.stepId);
    const record = execution.writes?.records.find((r) => r.stepId === line.step.stepId) ?? recordNamedByWrite(line.step);
    const link = record === undefined ? "" : ` <${freeeRecordUrl(record)}|${T.openInFreee}>`;
    body.push(`*${line.step.order}. ${inlineMrkdwn(stepTitle(line.step, preview))}*${link}`);
    const rows = preview?.rows ?? [];
    // Masked (an HR plan in a public channel): who and what, never the amounts — as its Process card showed it.
    if (options.masked === true) body.push(`${T.outcome[outcome]} ｜ ${inlineMrkdwn(PrivacyTexts.maskedChange([...new Set(rows.map((r) => `${r.target} ${r.label}`))].join("、") || stepTitle(line.step, preview)))}`);
    else if (rows.length === 0) body.push(`${T.outcome[outcome]} ｜ ${inlineMrkdwn(preview?.summary ?? stepTitle(line.step, preview))}`);
    else for (const row of rows) body.push(`${T.outcome[outcome]} ｜ ${inlineMrkdwn(rowText(row, preview?.current))}`);
  }
  const maybe = outcomes.some((o) => o.outcome === "unknown");
  const written = outcomes.some((o) => o.outcome === "done");
  const footer = ledgerless ? [T.writesUnreadable] : [...(maybe ? [T.unknownWrites] : []), maybe || written ? T.nothingElse : T.noWrites];
  return bounded(chunk([head, ...body, ...footer, ...droppedLine].join("\n")), CHANGE_BLOCKS, (rest) => T.moreSections(rest));
}

type Outcome = keyof typeof T.outcome;
function outcomeOf(state: StepState, ledgerless: boolean): Outcome {
  if (state === "unknown") return "unknown";
  if (ledgerless && (state === "done" || state === "failed")) return "unknown";
  if (state === "done") return "done";
  if (state === "failed" || state === "running") return "failed";
  return "notRun";
}

/** What the reads returned: a short table per read step (the first rows), its size, and where the rest is. */
export function tableBlocks(lines: readonly StepLine[], csvSteps: ReadonlySet<string> = new Set(), csvIn: "thread" | "dm" = "thread"): Card["blocks"] {
  const blocks = lines.flatMap((l) => {
    if (l.table === undefined || l.state !== "done") return [];
    const t = l.table;
    const head = `*${l.step.order}. ${inlineMrkdwn(t.label)}（${t.total} 件）*`;
    if (t.columns.length === 0 || t.rows.length === 0) return [wholeSection(`${head}\n${T.emptyResult}`)];
    const rest = (left: number) => (csvSteps.has(l.step.stepId) ? (csvIn === "dm" ? T.restInDmCsv(left) : T.restInCsv(left)) : T.restNotShown(left));
    return [wholeSection(resultTableText(head, t, CARD_TABLE_ROWS, TABLE_TEXT_MAX, rest))];
  });
  return blocks.length <= TABLE_BLOCKS ? blocks : [...blocks.slice(0, TABLE_BLOCKS - 1), wholeSection(T.moreTables(blocks.length - TABLE_BLOCKS + 1))];
}

/** A run that stopped: which steps ran, by their numbers — a step freee refused failed, it did not run. */
export function ranBlocks(lines: readonly StepLine[]): Card["blocks"] {
  const of = (...states: StepState[]) => lines.filter((l) => states.includes(l.state)).map((l) => l.step.order);
  const summary = T.ranSummary({ ran: of("done"), failed: of("failed", "running"), unknown: of("unknown"), notRun: of("not_run", "waiting") });
  return bounded(chunk(summary), 2, (rest) => T.moreSections(rest));
}

function bounded(texts: readonly string[], max: number, more: (rest: number) => string): Card["blocks"] {
  if (texts.length <= max) return texts.map((t) => wholeSection(t));
  return [...texts.slice(0, max - 1).map((t) => wholeSection(t)), wholeSection(more(texts.length - max + 1))];
}
