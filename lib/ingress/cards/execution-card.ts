import type { Execution } from "../../core/domain/records";
import { throttleFaultUntil } from "../../core/domain/throttle-fault";
import { agentFailureMessageFor, ExecutionCardTexts as T, failureMessageFor, freeeThrottleLiftsLine, limitMessageFor } from "../../core/messages/ja";
import type { Limits } from "../../core/config/limits";
import type { CardState as TaskHistory } from "../../core/domain/card-refresher";
import { ActionIds, actions, context, header, inlineMrkdwn, quotedMrkdwn, section, user, type Card } from "./blocks";
import { PrivacyTexts } from "../../core/messages/policy";
import { isMasked } from "../public-masking";
import type { CardLinks } from "./admin-link";
import { changeBlocks, ranBlocks, stepBlocks, stepLines, stepTitle, tableBlocks, type StepLine } from "./execution-steps";
import { failureGuidance } from "./failure-guidance";

export const CANCELLING_TEXT = "中止中...";
export const CANCELLED_TEXT = "中止";

/**
 * The Execution card of run N: progress while running, then its outcome — the change table with each row's
 * outcome, what freee refused and what to do about it — with [中止] / [再実行] as the state allows. Japanese only:
 * no tool names, step ids or token counts (the audit log holds those).
 */
export function renderExecutionCard(history: TaskHistory, executionNo: number, limits: Pick<Limits, "maxReruns">, links: CardLinks = {}): Card {
  const { task } = history;
  const execution = history.executions.find((e) => e.executionNo === executionNo);
  const title = executionNo > 1 ? `実行 #${executionNo} (再実行)` : `実行 #${executionNo}`;
  if (execution === undefined) {
    return { text: `${title}: 準備中...`, blocks: [header(title), section("実行準備中...")] };
  }
  const blocks: Card["blocks"] = [header(title)];
  let text: string;
  const process = history.processes.find((p) => p.version === execution.processVersion);
  const lines: StepLine[] = process?.steps === undefined ? [] : stepLines(process, execution);
  const steps = (): Card["blocks"] => (process === undefined ? [] : stepBlocks(process, lines));
  // An HR plan posted in a public channel: each row's outcome without its amounts, as its Process card showed it.
  const changes = (): Card["blocks"] => (process === undefined ? [] : changeBlocks(process, execution, lines, { masked: isMasked(process) }));
  const stepName = (stepId: string) => {
    const step = process?.steps?.find((s) => s.stepId === stepId);
    return step === undefined ? stepId : `${step.order}. ${inlineMrkdwn(stepTitle(step, process?.preview?.steps.find((p) => p.stepId === stepId)))}`;
  };
  const ref = { taskId: task.taskId, executionNo };
  const isLatest = executionNo === task.executionCount;
  const rerunsLeft = 1 + limits.maxReruns - task.executionCount;
  const rerunBlocks = (offered = true): Card["blocks"] => {
    if (!isLatest || !offered) return [];
    if (rerunsLeft > 0) {
      return [
        actions(`execution_${executionNo}`, [{ actionId: ActionIds.rerun, text: "再実行", style: "primary", value: ref }]),
        context(`再実行はあと ${rerunsLeft} 回できます。`),
      ];
    }
    return [section(limitMessageFor("reruns", limits.maxReruns))];
  };
  switch (execution.status) {
    case "pending":
      blocks.push(section("実行準備中..."));
      text = `${title}: 準備中...`;
      break;
    case "running":
      blocks.push(section(`*実行中...*\n${progressLine(execution, lines, stepName)}`));
      blocks.push(...steps());
      blocks.push(actions(`execution_${executionNo}`, [{ actionId: ActionIds.cancel, text: "中止", style: "danger", value: ref }]));
      text = `${title}: 実行中`;
      break;
    case "cancelled":
      if (execution.cancelFinalizedAt === undefined) {
        blocks.push(section(`:black_square_for_stop: *${CANCELLING_TEXT}*`));
        text = `${title}: ${CANCELLING_TEXT}`;
      } else {
        blocks.push(section(`:black_square_for_stop: *${CANCELLED_TEXT}*`));
        blocks.push(...ranBlocks(lines), ...changes(), ...steps());
        blocks.push(...rerunBlocks());
        text = `${title}: ${CANCELLED_TEXT}`;
      }
      if (execution.cancelledBy !== undefined) blocks.push(context(`中止: ${user(execution.cancelledBy)}`));
      break;
    case "completed":
      {
        // Results with HR personal data went to the requester privately: the thread shows where, not what.
        const sent = execution.privateDelivery;
        const shown = sent === undefined ? lines : lines.filter((l) => !sent.stepIds.includes(l.step.stepId));
        const summary = execution.resultSummary !== undefined && sent?.summary !== true ? `\n${quotedMrkdwn(execution.resultSummary)}` : "";
        blocks.push(section(`:white_check_mark: *完了*${summary}`));
        if (sent !== undefined) blocks.push(section(sent.channelId === undefined ? PrivacyTexts.dmFailed(sent.requesterId) : PrivacyTexts.sentByDm(sent.requesterId)));
        blocks.push(...changes(), ...tableBlocks(shown, new Set((execution.resultFiles ?? []).map((f) => f.stepId))), ...steps());
      }
      text = `${title}: 完了`;
      break;
    case "failed":
    case "timed_out": {
      const errorName = execution.status === "timed_out" ? "RunTimeoutError" : execution.errorName;
      const message = failureMessageFor("L4", errorName, links);
      blocks.push(section(`:warning: ${message}`));
      const lifts = errorName === "FreeeThrottledError" ? freeeThrottleLiftsLine(throttleFaultUntil(execution.fault?.reason)) : undefined;
      if (lifts !== undefined) blocks.push(context(lifts));
      const why = execution.status === "failed" ? agentFailureMessageFor(execution.agentFailure?.reason) : undefined;
      if (why !== undefined) blocks.push(context(`原因: ${why}`));
      const guidance = failureGuidance(process, execution, lines);
      if (guidance.lines.length > 0) blocks.push(section(guidance.lines.map((l) => `ℹ️ ${inlineMrkdwn(l)}`).join("\n")));
      const missing = execution.completion?.writeStepsMissing ?? [];
      if (missing.length > 0) {
        // The MCP server's ledger, not the agent's word: what a rerun will do (the done writes are not repeated).
        blocks.push(section(T.missingWrites(missing.map(stepName), (execution.completion?.writeStepsDone ?? []).map(stepName))));
      }
      blocks.push(...ranBlocks(lines), ...changes(), ...steps());
      blocks.push(...rerunBlocks(guidance.rerunHelps));
      text = why === undefined ? `${title}: ${message}` : `${title}: ${message} (${why})`;
      break;
    }
  }
  return { text, blocks };
}

function progressLine(execution: Execution, lines: readonly StepLine[], stepName: (stepId: string) => string): string {
  // A run recorded before per-step progress existed has only the count.
  const done = execution.progress?.steps === undefined ? (execution.progress?.completedSteps ?? 0) : lines.filter((l) => l.state === "done" || l.state === "failed").length;
  const parts = [lines.length === 0 ? `完了ステップ: ${execution.progress?.completedSteps ?? 0}` : `進捗: ${done} / ${lines.length} ステップ`];
  // The step, in the card's words (the tool it calls is in the audit log): only while a call is open.
  const current = execution.progress?.currentStepId;
  if (execution.progress?.currentTool !== undefined && current !== undefined) parts.push(T.currentStep(stepName(current)));
  const errors = execution.progress?.toolErrors.length ?? 0;
  if (errors > 0) parts.push(`ツールエラー: ${errors} 件 (エージェントが対応中)`);
  return parts.join("\n");
}
