import type { BetaManagedAgentsSessionEvent } from "@anthropic-ai/sdk/resources/beta/sessions/events";
import type { ExecutionProgress, StepProgress } from "../../core/domain/records";
import { toolSummary } from "../../freee/tools/summaries";
import { AgentRunFailedError, AuthError, RefusedResponseError, type AgentFailureReason } from "../../core/errors/taxonomy";
import { STEP_MARKER } from "./agent-prompt";
import { errorNote, MAX_TABLES, okNote, readTableOf } from "./step-results";
import { hrPersonalFieldsIn, looksLikeHr, readsHr } from "../../freee/hr-personal-data";

/**
 * Reads a batch of new session events (chronological) into card progress and the run's outcome
 * (docs/architecture.md, the approved Process is the capability). Pure: no I/O, so every signal is unit-testable. Failure signals throw the taxonomy class.
 */

/** seenEventIds only needs the ids at the time boundary of the `created_at[gte]` filter; keep it bounded. */
export const MAX_SEEN_EVENT_IDS = 200;
export const MAX_TOOL_ERRORS = 20;
const MAX_MESSAGE_CHARS = 300;

export interface InterpretOptions {
  stepsSentAt: string;
}

export interface InterpretResult {
  progress: ExecutionProgress;
  /** A `session.status_idle` / `end_turn` processed after the steps were sent was seen. */
  completed: boolean;
  /** Text of the last agent.message in this batch (up to the completion), if any. */
  lastAgentText: string | undefined;
}

export function interpretEvents(
  events: readonly BetaManagedAgentsSessionEvent[],
  previous: ExecutionProgress,
  options: InterpretOptions,
): InterpretResult {
  const seen = new Set(previous.seenEventIds);
  const progress: ExecutionProgress = {
    ...previous,
    seenEventIds: [...previous.seenEventIds],
    toolErrors: [...previous.toolErrors],
    ...(previous.steps === undefined ? {} : { steps: previous.steps.map((s) => ({ ...s })) }),
  };
  const toolNames = new Map<string, string>();
  /** Tool calls that read freee人事労務: their results are checked for HR personal data. */
  const hrCalls = new Set<string>();
  /** Which step each tool call belongs to: the step whose marker came last before it. */
  const toolSteps = new Map<string, string | undefined>();
  const stepsSentAt = Date.parse(options.stepsSentAt);
  let lastAgentText: string | undefined;
  let completed = false;

  for (const event of events) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    progress.seenEventIds.push(event.id);
    const at = event.processed_at ?? undefined;
    if (at !== undefined && (progress.lastEventAt === undefined || Date.parse(at) > Date.parse(progress.lastEventAt))) {
      progress.lastEventAt = at;
    }

    switch (event.type) {
      case "agent.message": {
        const text = event.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
        for (const match of text.matchAll(STEP_MARKER)) advanceStep(progress, match[1] as string);
        if (text.trim() !== "") lastAgentText = text;
        break;
      }
      case "agent.mcp_tool_use":
        toolNames.set(event.id, event.name);
        if (readsHr(event.name, (event as { input?: unknown }).input)) hrCalls.add(event.id);
        toolSteps.set(event.id, progress.currentStepId);
        progress.currentTool = event.name;
        stepOf(progress, progress.currentStepId, (step) => (step.state = "running"));
        break;
      case "agent.mcp_tool_result": {
        const tool = toolNames.get(event.mcp_tool_use_id) ?? progress.currentTool ?? "unknown";
        // The call has finished: the card must not name it as running any more.
        if (progress.currentTool === tool) delete progress.currentTool;
        const text = (event.content ?? []).flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
        const stepId = toolSteps.has(event.mcp_tool_use_id) ? toolSteps.get(event.mcp_tool_use_id) : progress.currentStepId;
        if (event.is_error === true) {
          const message = text.replace(/\s+/g, " ").slice(0, MAX_MESSAGE_CHARS);
          progress.toolErrors.push({ tool, message: message === "" ? "(エラー内容なし)" : message });
          stepOf(progress, stepId, (step) => Object.assign(step, { state: "failed", errorCalls: step.errorCalls + 1, note: errorNote(text) }));
        } else {
          const effect = toolSummary(tool)?.readOnly === true ? "read" : "write";
          const table = effect === "read" ? readTableOf(text) : undefined;
          // The tool's name says it for a typed HR tool; a generic call's path is known only in the batch that saw it
          // start, so its answer's shape (employees) says it otherwise.
          const personal = hrCalls.has(event.mcp_tool_use_id) || readsHr(tool, undefined) || looksLikeHr(text) ? hrPersonalFieldsIn(text) : [];
          stepOf(progress, stepId, (step) => {
            Object.assign(step, { state: "done", okCalls: step.okCalls + 1, note: okNote(effect, table) });
            if (personal.length > 0) step.personal = [...new Set([...(step.personal ?? []), ...personal])].sort();
            // A bounded number of tables per run (the Execution item's size): later reads keep their one line.
            const kept = (progress.steps ?? []).filter((s) => s.table !== undefined && s !== step).length;
            if (table !== undefined && kept < MAX_TABLES) step.table = table;
          });
        }
        break;
      }
      case "session.error":
        throwIfFinal(event);
        break;
      case "session.status_idle":
        switch (event.stop_reason.type) {
          case "end_turn":
            // Sessions start idle; only a turn that ended after our steps were sent means done.
            if (at !== undefined && Date.parse(at) >= stepsSentAt) completed = true;
            break;
          case "requires_action":
            throw failed("requires_action", "the agent is waiting for a confirmation it will never get", {
              eventIds: event.stop_reason.event_ids,
            });
          case "retries_exhausted":
            throw failed("retries_exhausted", "the session exhausted its retries");
          case "budget_reached":
            throw failed("budget_reached", "the session reached its budget");
          case "refusal":
            throw new RefusedResponseError("managed agent: the model refused", { stopDetails: event.stop_details });
        }
        break;
      case "session.status_terminated":
      case "session.deleted":
        throw failed("terminated", `the session ended (${event.type})`);
      default:
        break;
    }
    if (completed) break;
  }
  // The turn ended: a step still open (an agent_decide step, which calls no tool of its own) is done.
  if (completed) for (const step of progress.steps ?? []) if (step.state === "running") closeStep(step);

  if (progress.seenEventIds.length > MAX_SEEN_EVENT_IDS) {
    progress.seenEventIds = progress.seenEventIds.slice(-MAX_SEEN_EVENT_IDS);
  }
  if (progress.toolErrors.length > MAX_TOOL_ERRORS) progress.toolErrors = progress.toolErrors.slice(-MAX_TOOL_ERRORS);
  return { progress, completed, lastAgentText };
}

/** A new step marker closes the previous step and opens this one. */
function advanceStep(progress: ExecutionProgress, stepId: string): void {
  if (progress.currentStepId === stepId) return;
  if (progress.currentStepId !== undefined) {
    progress.completedSteps += 1;
    stepOf(progress, progress.currentStepId, (step) => {
      if (step.state === "running") closeStep(step);
    });
  }
  progress.currentStepId = stepId;
  // A tool the previous step left "running" (its result never came) is not this step's.
  delete progress.currentTool;
  const steps = (progress.steps ??= []);
  if (!steps.some((s) => s.stepId === stepId)) steps.push({ stepId, state: "running", okCalls: 0, errorCalls: 0 });
}

/** A step left by its marker (or by the end of the turn): done unless its last call failed. */
function closeStep(step: StepProgress): void {
  if (step.okCalls === 0 && step.errorCalls === 0) Object.assign(step, { state: "done", note: step.note ?? "判断しました" });
  else step.state = step.errorCalls > 0 && step.note?.startsWith("エラー") === true ? "failed" : "done";
}

function stepOf(progress: ExecutionProgress, stepId: string | undefined, change: (step: StepProgress) => void): void {
  const step = stepId === undefined ? undefined : progress.steps?.find((s) => s.stepId === stepId);
  if (step !== undefined) change(step);
}

type SessionErrorEvent = Extract<BetaManagedAgentsSessionEvent, { type: "session.error" }>;

/** `retrying` is the platform retrying by itself: wait. `terminal` / `exhausted` end the run. */
function throwIfFinal(event: SessionErrorEvent): void {
  const retry = event.error.retry_status.type;
  if (retry === "retrying") return;
  const details = { errorType: event.error.type, retryStatus: retry, providerMessage: event.error.message.slice(0, MAX_MESSAGE_CHARS) };
  switch (event.error.type) {
    case "mcp_authentication_failed_error":
      throw new AuthError("managed agent: the freee MCP server refused the session's credential", { service: "freee", details });
    case "mcp_connection_failed_error":
      throw failed("mcp_unreachable", "managed agent: the freee MCP server is unreachable", details);
    case "model_overloaded_error":
      throw failed("model_overloaded", "managed agent: the model is overloaded", details);
    default:
      throw failed("session_error", `managed agent: session error (${event.error.type})`, details);
  }
}

function failed(reason: AgentFailureReason, message: string, details: Record<string, unknown> = {}): AgentRunFailedError {
  return new AgentRunFailedError(message.startsWith("managed agent") ? message : `managed agent: ${message}`, {
    reason,
    details: { reason, ...details },
  });
}
