import type { ExecutionProgress, ProcessStep, TokenUsage } from "../../core/domain/records";

/**
 * L4 as the ExecutionRun state machine sees it (docs/architecture.md, the approved Process is the capability). Implemented on Claude Managed Agents by
 * `ManagedAgentRunner` (lib/model/agent/managed-agent-runner.ts). Errors leave as taxonomy classes: transient ones
 * are retried by Step Functions; a failed session is an AgentRunFailedError / RefusedResponseError / AuthError.
 */
export interface StartRunInput {
  teamId: string;
  taskId: string;
  executionId: string;
  /** The approved steps this session is to do (on a rerun, without the writes an earlier run completed). */
  steps: readonly ProcessStep[];
  /** Write steps an earlier run of this Task completed (the MCP server's ledger): named to the agent, not sent. */
  doneStepIds?: readonly string[];
  /** freee tools enabled and always_allow'ed for this session; nothing else is. */
  allowedTools: readonly string[];
}

export interface StartRunResult {
  sessionId: string;
  /** When the steps were sent: only an end_turn after this means done. */
  stepsSentAt: string;
}

export type PollOutcome =
  | { state: "running"; progress: ExecutionProgress; usage?: TokenUsage }
  | { state: "completed"; progress: ExecutionProgress; resultSummary: string; usage: TokenUsage };

export interface AgentRunner {
  start(input: StartRunInput): Promise<StartRunResult>;
  /** New events since `progress` (seen ids skipped). Throws the taxonomy class when the session failed. */
  poll(sessionId: string, progress: ExecutionProgress): Promise<PollOutcome>;
  /**
   * Best effort `user.interrupt`; the caller marks the Execution cancelled whatever this returns. Resolves when
   * the interrupt was accepted; otherwise throws the classified error (TransientError subclasses, BadRequestError…)
   * so the caller can audit it — and still cancels.
   */
  interrupt(sessionId: string): Promise<void>;
}
