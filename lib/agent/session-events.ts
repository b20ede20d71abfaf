import type { BetaManagedAgentsSessionEvent } from "@anthropic-ai/sdk/resources/beta/sessions/events";
import type { ExecutionProgress } from "../domain/records";
import { AgentRunFailedError, AuthError, RefusedResponseError, type AgentFailureReason } from "../errors/taxonomy";
import { STEP_MARKER } from "./agent-prompt";

/**
 * Reads a batch of new session events (chronological) into card progress and the run's outcome
 * (DESIGN §7). Pure: no I/O, so every signal is unit-testable. Failure signals throw the taxonomy class.
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
  };
  const toolNames = new Map<string, string>();
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
        progress.currentTool = event.name;
        break;
      case "agent.mcp_tool_result":
        if (event.is_error === true) {
          const tool = toolNames.get(event.mcp_tool_use_id) ?? progress.currentTool ?? "unknown";
          const message = (event.content ?? [])
            .flatMap((block) => (block.type === "text" ? [block.text] : []))
            .join(" ")
            .slice(0, MAX_MESSAGE_CHARS);
          progress.toolErrors.push({ tool, message: message === "" ? "(エラー内容なし)" : message });
        }
        break;
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

  if (progress.seenEventIds.length > MAX_SEEN_EVENT_IDS) {
    progress.seenEventIds = progress.seenEventIds.slice(-MAX_SEEN_EVENT_IDS);
  }
  if (progress.toolErrors.length > MAX_TOOL_ERRORS) progress.toolErrors = progress.toolErrors.slice(-MAX_TOOL_ERRORS);
  return { progress, completed, lastAgentText };
}

/** A new step marker closes the previous step. */
function advanceStep(progress: ExecutionProgress, stepId: string): void {
  if (progress.currentStepId === stepId) return;
  if (progress.currentStepId !== undefined) progress.completedSteps += 1;
  progress.currentStepId = stepId;
}

type SessionErrorEvent = Extract<BetaManagedAgentsSessionEvent, { type: "session.error" }>;

/** `retrying` is the platform retrying by itself: wait. `terminal` / `exhausted` end the run. */
function throwIfFinal(event: SessionErrorEvent): void {
  const retry = event.error.retry_status.type;
  if (retry === "retrying") return;
  const details = { errorType: event.error.type, retryStatus: retry, providerMessage: event.error.message.slice(0, MAX_MESSAGE_CHARS) };
  switch (event.error.type) {
    case "mcp_authentication_failed_error":
      throw new AuthError("managed agent: the freee MCP server refused the session's credential", { details });
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
