import type { Task } from "../core/domain/records";
import { AuthError } from "../core/errors/taxonomy";
import type { PipelineDeps } from "./ports";

/**
 * freee first: a request in a workspace whose freee connection is not usable (none, disconnected, or marked for
 * reconnect — a refused refresh or a revoked grant marks it so) ends before any plan is made: no L1–L3 model call is
 * spent on a plan nobody could run. The AuthError goes through TaskPipeline's one failure path (AnalyzeTask's
 * Catch): the task `failed` at L1, `error.L1` audited, counted in the ledger, and the Task card says what to do and
 * who can do it (lib/core/messages/ja.ts, FreeeFirstMessages). A connection freee refuses later is the run's AuthError.
 */
export async function requireUsableFreee(deps: Pick<PipelineDeps, "freeeConnection">, task: Task): Promise<void> {
  const connection = await deps.freeeConnection(task.thread.teamId);
  if (connection.status === "connected") return;
  // The reason is in the message: the Catch carries only the name and the message to the audit entry.
  throw new AuthError(`freee first: the workspace's freee connection is not usable (${connection.status}); no plan is made`, {
    service: "freee",
    details: { reason: connection.status, check: "freee_first" },
  });
}
