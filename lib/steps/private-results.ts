import type { Execution, ExecutionProgress, Task } from "../core/domain/records";
import { CARD_TABLE_ROWS, tableCsv } from "../model/agent/step-results";
import { ExecutionCardTexts } from "../core/messages/ja";
import { logLayerError } from "../core/observability/logger";
import type { PipelineDeps } from "./ports";
import { attachReadResults } from "./run-writes";
import { nowIso, type TaskRef } from "./common";

type Delivered = Pick<Execution, "resultFiles" | "privateDelivery">;

/**
 * Where a finished run's read results go (docs/slack.md, results with HR personal data). Results holding HR
 * personal data (lib/freee/hr-personal-data.ts) of a run whose thread is in a public channel — Slack's channel
 * facts decide — go to the requester's DM (tables, the summary, the CSV of a long read) and the Execution item
 * records it, so the thread's card says where they went and shows none of them. Everything else is as before: long
 * reads as CSV in the thread. A DM Slack refuses is audited; the results still do not go to the thread.
 */
export async function deliverReadResults(deps: Pick<PipelineDeps, "cards" | "log" | "audit" | "store" | "clock">, task: TaskRef, execution: Execution, progress: ExecutionProgress, summary: string): Promise<Delivered> {
  const personal = (progress.steps ?? []).filter((s) => s.state === "done" && (s.personal ?? []).length > 0);
  if (personal.length === 0 || (await deps.cards.audienceOf(task.thread)) === "private") {
    return { resultFiles: await attachReadResults(deps, task, execution.executionNo, progress) };
  }
  const hidden = new Set(personal.map((s) => s.stepId));
  const full: Task = await deps.store.getTaskOrThrow(task.taskId);
  const process = await deps.store.getVersion("process", task.taskId, execution.processVersion);
  const orderOf = (stepId: string) => (process?.kind === "process" ? process.steps?.find((s) => s.stepId === stepId)?.order : undefined) ?? 0;
  const tables = personal.flatMap((s) => (s.table === undefined ? [] : [{ order: orderOf(s.stepId), stepId: s.stepId, table: s.table, inCsv: s.table.total > CARD_TABLE_ROWS }]));
  const files = tables
    .filter((t) => t.inCsv)
    .map((t) => ({ filename: `${task.taskId}-e${execution.executionNo}-${t.stepId}.csv`, title: `${t.table.label}（${t.stepId}）`, content: tableCsv(t.table), comment: ExecutionCardTexts.csvComment(t.table.label, t.table.total, t.table.rows.length) }));
  const base = { to: "requester_dm" as const, requesterId: full.requesterId, stepIds: [...hidden], summary: summary !== "", at: nowIso(deps) };
  let privateDelivery: NonNullable<Execution["privateDelivery"]>;
  try {
    const sent = await deps.cards.sendPrivately(task.thread, full.requesterId, { taskTitle: full.spec?.title ?? full.requestText, executionNo: execution.executionNo, ...(summary === "" ? {} : { summary }), tables }, files);
    privateDelivery = { ...base, channelId: sent.channelId, files: tables.filter((t) => t.inCsv).map((t, i) => ({ stepId: t.stepId, fileId: sent.fileIds[i]! })) };
  } catch (err) {
    logLayerError(deps.log, "slack", err, { taskId: task.taskId, executionNo: execution.executionNo, action: "deliver_private_results" });
    await deps.audit.recordError({ teamId: task.thread.teamId, taskId: task.taskId, layer: "slack", subject: `dm#execution#${execution.executionNo}`, actor: "system:pipeline", error: err });
    privateDelivery = { ...base, files: [] };
  }
  await deps.audit.record({
    teamId: task.thread.teamId,
    taskId: task.taskId,
    action: "execution.results_sent_privately",
    subject: `execution#${execution.executionNo}`,
    actor: "system:pipeline",
    layer: "slack",
    details: { executionNo: execution.executionNo, to: "requester_dm", requesterId: full.requesterId, sent: privateDelivery.channelId !== undefined, steps: [...hidden], fields: [...new Set(personal.flatMap((s) => s.personal ?? []))].sort() },
  });
  return { resultFiles: await attachReadResults(deps, task, execution.executionNo, progress, hidden), privateDelivery };
}
