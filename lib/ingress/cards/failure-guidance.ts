import type { Execution, ProcessStep, ProcessVersion } from "../../core/domain/records";
import { permissionFor, refusalOf, RunGuidanceTexts, type FreeeRefusal } from "../../core/messages/run-guidance";
import { AGENT_DECIDE } from "../../freee/tools/summaries";
import { readConditions } from "../../preview/read-words";
import { stepLines, stepTitle, type StepLine } from "./execution-steps";

/**
 * What a stopped run's card tells the user to do when freee refused a step (the note the step's last tool result
 * left, lib/model/agent/step-results.ts): which permission a 403 lacks — and that [再実行] cannot help, so it is not
 * offered —, what a 404 did not find, from when a 429 lets the run go on.
 */
export interface FailureGuidance {
  lines: string[];
  /** False when a rerun would meet the same refusal (a missing permission): the card offers no [再実行]. */
  rerunHelps: boolean;
  /** The first step refused for a missing permission, and the permission (when rerunHelps is false). */
  forbidden?: { step: string; permission: string };
}

export function failureGuidance(process: ProcessVersion | undefined, execution: Execution, lines: readonly StepLine[]): FailureGuidance {
  const out: string[] = [];
  let forbidden: FailureGuidance["forbidden"];
  let rateLimited = false;
  for (const line of lines) {
    if (line.state !== "failed") continue;
    const refusal = refusalOf(line.note);
    if (refusal === undefined) continue;
    const name = `${line.step.order}. ${stepTitle(line.step, process?.preview?.steps.find((p) => p.stepId === line.step.stepId))}`;
    switch (refusal.kind) {
      case "forbidden": {
        const permission = permissionOf(line.step, execution);
        forbidden ??= { step: name, permission };
        out.push(RunGuidanceTexts.forbidden(name, permission));
        break;
      }
      case "not_found":
        out.push(RunGuidanceTexts.notFound(name, targetOf(process, line.step) ?? name));
        break;
      case "rate_limited":
        // One wait for the whole run: freee counts the company's calls, not a step's.
        if (!rateLimited) out.push(RunGuidanceTexts.rateLimited(untilOf(execution, refusal)));
        rateLimited = true;
        break;
    }
  }
  return { lines: out, rerunHelps: forbidden === undefined, ...(forbidden === undefined ? {} : { forbidden }) };
}

/**
 * Why a [再実行] of this stopped run cannot do better than it did (undefined: it can): freee refused a step for a
 * missing permission. Its card offers no [再実行], and a click on an older card's is refused with this reply
 * (lib/ingress/actions/rerun.ts).
 */
export function rerunRefusal(process: ProcessVersion, execution: Execution): string | undefined {
  if (execution.status !== "failed" || process.steps === undefined) return undefined;
  const forbidden = failureGuidance(process, execution, stepLines(process, execution)).forbidden;
  return forbidden === undefined ? undefined : RunGuidanceTexts.rerunRefused(forbidden.step, forbidden.permission);
}

/** The permission of the tool the step called: an agent_decide step's own call is in the run's tool errors. */
function permissionOf(step: ProcessStep, execution: Execution): string {
  if (step.tool !== AGENT_DECIDE) return permissionFor(step.tool, step.toolInput);
  const called = [...(execution.progress?.toolErrors ?? [])].reverse().find((e) => refusalOf(e.message)?.kind === "forbidden");
  return permissionFor(called?.tool ?? step.tool, {});
}

/** What a 404 step was about: the preview's 対象 (with its 適用), or the read's conditions in words. */
function targetOf(process: ProcessVersion | undefined, step: ProcessStep): string | undefined {
  const rows = process?.preview?.steps.find((p) => p.stepId === step.stepId)?.rows ?? [];
  const targets = [...new Set(rows.map((r) => (r.effective === undefined ? r.target : `${r.target}、${r.effective}`)))];
  if (targets.length > 0) return targets.join("／");
  const conditions = step.tool === AGENT_DECIDE ? [] : readConditions(step);
  return conditions.length === 0 ? undefined : conditions.join("、");
}

/** When the limit lifts: the wait freee gave, from the last event the run saw. */
function untilOf(execution: Execution, refusal: Extract<FreeeRefusal, { kind: "rate_limited" }>): Date | undefined {
  const at = execution.progress?.lastEventAt ?? execution.endedAt;
  if (refusal.waitSeconds === undefined || at === undefined) return undefined;
  return new Date(Date.parse(at) + refusal.waitSeconds * 1000);
}
