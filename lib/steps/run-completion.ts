import { RESULT_DONE, RESULT_INCOMPLETE } from "../model/agent/agent-prompt";
import type { Execution, ExecutionCompletion, ProcessStep } from "../core/domain/records";
import { judgeReply, type ResponseContract } from "../core/errors/response-contract";
import {
  AuthError,
  FreeeCompanyChangedError,
  FreeeForbiddenError,
  FreeeNotFoundError,
  FreeeRateLimitedError,
  FreeeThrottledError,
  IncompleteRunError,
  SilentFailureError,
  TruncatedResponseError,
  WriteOutcomeUnknownError,
} from "../core/errors/taxonomy";
import { refusalKindOf, type FreeeRefusalKind } from "../core/messages/freee-refusals";
import { WRITE_CALL_DEFAULTS } from "../mcp/write-call-defaults";
import type { WriteRecord, WriteStepRef } from "../store/write-ledger";
import { effectOfStep } from "../freee/tools/summaries";

/**
 * The L4 completion contract (one layer down): a session that ended its turn is a completed
 * run only when
 * - every approved write step has a recorded successful tool call — the freee MCP server's write ledger, not the
 *   agent's word (lib/store/write-ledger.ts). A write still `in_flight` is one freee may have taken (its completion
 *   was not recorded): it counts as unknown, never as missing;
 * - the agent's final message exists, is not empty, cut off or refused (the response-contract judge), and ends
 *   with `[result:done]`: a message without a result line was cut off or ended the turn with a question.
 * Otherwise the run fails with a name: WriteOutcomeUnknownError (a write freee may have taken: check freee),
 * IncompleteRunError (steps left undone; [再実行] does only those), AuthError (the freee connection failed).
 */

/** Managed Agents' turn end, as the provider-neutral judge reads it: `refusal` is a refused reply. */
export const managedAgentsContract: ResponseContract = {
  provider: "anthropic-managed-agents",
  truncatedStopReasons: new Set(),
  refusedStopReasons: new Set(["refusal"]),
};

export type LedgerEntry = WriteRecord & WriteStepRef;

export interface CompletionVerdict {
  completion: ExecutionCompletion;
  /** The final message without its result line (what the card shows). */
  summary: string;
  /** Why the run is not completed; undefined when it is. */
  error?: Error;
}

export interface WriteStepStates {
  done: string[];
  /** No item, or released: freee refused it or it was never sent — definitely not written. */
  missing: string[];
  /**
   * May have reached freee: `unknown` items, and `in_flight` ones — a write whose freee answer the MCP server
   * could not record (its completion write failed), or one still under way. Never "not written".
   */
  unknown: string[];
  /** The `in_flight` share of `unknown`, with when each was claimed (a young one may still settle). */
  inFlight: Array<{ stepId: string; since: string }>;
}

/** The approved write steps of this Process version and where each stands in the ledger. */
export function writeStepStates(steps: readonly ProcessStep[], processVersion: number, ledger: readonly LedgerEntry[]): WriteStepStates {
  const byStep = new Map(ledger.filter((w) => w.processVersion === processVersion).map((w) => [w.stepId, w]));
  const out: WriteStepStates = { done: [], missing: [], unknown: [], inFlight: [] };
  for (const step of [...steps].sort((a, b) => a.order - b.order)) {
    if (effectOfStep(step) !== "write") continue;
    const entry = byStep.get(step.stepId);
    if (entry?.state === "done") out.done.push(step.stepId);
    else if (entry?.state === "unknown") out.unknown.push(step.stepId);
    else if (entry?.state === "in_flight") {
      out.unknown.push(step.stepId);
      out.inFlight.push({ stepId: step.stepId, since: entry.since });
    } else out.missing.push(step.stepId);
  }
  return out;
}

/**
 * The in-flight writes that may still settle by themselves: claimed less than the MCP server's in-flight lease
 * ago (its Lambda may still be waiting for freee, or retrying the ledger's completion). Older ones lost their
 * Lambda: their outcome is unknown until a read back settles it.
 */
export function settlingWrites(states: Pick<WriteStepStates, "inFlight">, now: Date, leaseMs: number = WRITE_CALL_DEFAULTS.inFlightLeaseMs): string[] {
  return states.inFlight.filter((w) => now.getTime() - Date.parse(w.since) < leaseMs).map((w) => w.stepId);
}

export function judgeRunCompletion(input: { steps: readonly ProcessStep[]; processVersion: number; ledger: readonly LedgerEntry[]; finalMessage: string; now: Date }): CompletionVerdict {
  const writes = writeStepStates(input.steps, input.processVersion, input.ledger);
  const { reported, summary, messageError } = readFinalMessage(input.finalMessage);
  const completion: ExecutionCompletion = {
    writeStepsDone: writes.done,
    writeStepsMissing: [...writes.unknown, ...writes.missing],
    reported,
    judgedAt: input.now.toISOString(),
  };
  const details = { writeStepsDone: writes.done, writeStepsMissing: writes.missing, writeStepsUnknown: writes.unknown, writeStepsInFlight: writes.inFlight.map((w) => w.stepId), reported };
  if (writes.unknown.length > 0) {
    return { completion, summary, error: new WriteOutcomeUnknownError(`freee writes of steps ${writes.unknown.join(", ")} may have landed and were not confirmed`, { details }) };
  }
  if (writes.missing.length > 0) {
    return {
      completion,
      summary,
      error: new IncompleteRunError(`the session ended its turn, but approved write steps have no recorded successful tool call: ${writes.missing.join(", ")}`, { details }),
    };
  }
  if (messageError !== undefined) return { completion, summary, error: messageError };
  return { completion, summary };
}

/**
 * The result marker as a model writes it, on the last non-empty line: bare, in a code span (`` `…` ``) or bold, then
 * only whitespace or closing punctuation (「[result:done]。」). A question mark is not such punctuation (an agent
 * that asks has not finished). A marker inside a fenced block counts when the fence closes the message. Nothing
 * looser: a marker mid-text, or followed by more words, is no result line. The ledger, not this, says what was
 * written (judgeRunCompletion checks it first).
 */
const RESULT_MARKER = /(`{1,3}|\*{1,2})?\[result:(done|incomplete)\]\1?[\s。．.、，,!！)）」』】]*$/u;
const FENCE = /^\s*```\s*$/;

export function readResultMarker(text: string): { result: "done" | "incomplete"; before: string } | undefined {
  const lines = text.split("\n");
  let end = lines.length;
  const skipBlank = () => {
    while (end > 0 && lines[end - 1]!.trim() === "") end--;
  };
  skipBlank();
  const fenced = end > 0 && FENCE.test(lines[end - 1]!);
  if (fenced) {
    end--;
    skipBlank();
  }
  if (end === 0) return undefined;
  const line = lines[end - 1]!;
  const match = RESULT_MARKER.exec(line);
  if (match === null) return undefined;
  let before = [...lines.slice(0, end - 1), line.slice(0, match.index)].join("\n").trimEnd();
  // The fence that opened the marker's block is no part of the summary.
  if (fenced) before = before.replace(/(^|\n)\s*```[^\n`]*$/, "");
  return { result: match[2] as "done" | "incomplete", before: before.trim() };
}

function readFinalMessage(text: string): { reported: ExecutionCompletion["reported"]; summary: string; messageError?: Error } {
  let judged: string;
  try {
    judged = judgeReply({ stopReason: "end_turn", stopDetails: null, texts: [text] }, managedAgentsContract);
  } catch (err) {
    return { reported: "missing", summary: "", messageError: asIncomplete(err) as Error };
  }
  const marker = readResultMarker(judged);
  if (marker === undefined) {
    const asked = /[?？]\s*$/.test(judged);
    const cause = new TruncatedResponseError(asked ? "the final message ends with a question, not a result line" : "the final message has no result line (cut off?)", {
      details: { expected: [RESULT_DONE, RESULT_INCOMPLETE], endsWithQuestion: asked },
    });
    return { reported: "missing", summary: judged.trim(), messageError: new IncompleteRunError(`the agent's final message does not meet the contract: ${cause.message}`, { cause, details: { endsWithQuestion: asked } }) };
  }
  const summary = marker.before;
  if (marker.result === "incomplete") {
    return { reported: "incomplete", summary, messageError: new IncompleteRunError("the agent reported that it could not carry out every step", { details: { reported: "incomplete" } }) };
  }
  return { reported: "done", summary };
}

const REFUSAL_CLASS: Record<FreeeRefusalKind, typeof IncompleteRunError> = {
  forbidden: FreeeForbiddenError,
  not_found: FreeeNotFoundError,
  rate_limited: FreeeRateLimitedError,
};

/**
 * An incomplete run after freee refused a step is named by that refusal — the last one the MCP server reported to
 * the agent (403, 404, 429) — so the ledger counts a permission, a missing record and the rate limit apart. Any
 * other verdict is returned as it is.
 */
export function namedByRefusal(error: Error, toolErrors: ReadonlyArray<{ message: string }>): Error {
  if (!(error instanceof IncompleteRunError) || error.name !== "IncompleteRunError") return error;
  const kind = [...toolErrors].reverse().map((e) => refusalKindOf(e.message)).find((k) => k !== undefined);
  if (kind === undefined) return error;
  return new REFUSAL_CLASS[kind](`${error.message} (freee refused a step: ${kind})`, { cause: error, details: { ...error.details, freeeRefusal: kind } });
}

/**
 * A poll that failed with a silent failure (the turn ended with no text, a refusal, a cut-off reply) is an
 * incomplete run: the subclass stays as the cause.
 */
export function asIncomplete(err: unknown): unknown {
  if (!(err instanceof SilentFailureError) || err instanceof IncompleteRunError) return err;
  return new IncompleteRunError(`the session ended its turn without a usable final message (${err.name})`, { cause: err, details: { cause: err.name } });
}

/**
 * The fault the freee MCP server stamped on the run: the run ends as AuthError (the connection failed),
 * FreeeCompanyChangedError (the connection acts on another company than the approved plan's) or FreeeThrottledError
 * (freee stopped the app's calls for about ten minutes).
 */
export function faultError(fault: NonNullable<Execution["fault"]>): AuthError | FreeeCompanyChangedError | FreeeThrottledError {
  if (fault.errorName === "FreeeThrottledError") {
    return new FreeeThrottledError(`freee throttled the run's calls (403, excessive access) (${fault.tool})`, {
      details: { tool: fault.tool, at: fault.at, ...(fault.reason === undefined ? {} : { reason: fault.reason }) },
    });
  }
  if (fault.errorName === "FreeeCompanyChangedError") {
    return new FreeeCompanyChangedError(`the freee connection acts on another company than the approved plan's (${fault.tool})`, {
      details: { tool: fault.tool, at: fault.at, ...(fault.reason === undefined ? {} : { reason: fault.reason }) },
    });
  }
  return new AuthError(`the freee connection failed during the run (${fault.tool}${fault.reason === undefined ? "" : `: ${fault.reason}`})`, {
    service: "freee",
    details: { tool: fault.tool, at: fault.at, ...(fault.reason === undefined ? {} : { reason: fault.reason }) },
  });
}
