import type { Task } from "../core/domain/records";
import { AuthError } from "../core/errors/taxonomy";
import { heldState, nowIso, refreshCard } from "./common";
import { PIPELINE_ACTOR, type PipelineDeps } from "./ports";

/**
 * freee first: a request in a workspace whose freee connection is not usable (none, or one marked for reconnect)
 * ends at the Task card before any plan is made — no L1–L3 model call is spent on a plan nobody could run. The
 * task becomes `failed` as an L1 AuthError (reason not_connected / reauth_required): audited as `error.L1`, counted
 * in the ledger, and the Task card says what to do and who can do it (lib/core/messages/ja.ts, FreeeFirstMessages).
 * A connection that is there but refused by freee at run time is the run's AuthError, as before.
 */
export async function stopUnlessFreeeUsable(deps: PipelineDeps, task: Task): Promise<Task | undefined> {
  const connection = await deps.freeeConnection(task.thread.teamId);
  if (connection.status === "connected") return undefined;
  const reason = connection.status === "not_connected" ? "not_connected" : "reauth_required";
  const error = new AuthError(`the workspace's freee connection is not usable (${reason}): no plan is made`, { details: { reason, check: "freee_first" } });
  // The entry first (its key is fixed: a retry stores it once), then the task: a retry after either finds the
  // task failed, or checks again.
  await deps.audit.recordError({ teamId: task.thread.teamId, taskId: task.taskId, layer: "L1", subject: "task", actor: PIPELINE_ACTOR, error, details: { reason } });
  const { record, applied } = await deps.store.transitionTask(task.taskId, "failed", { from: ["analyzing"], set: { failure: { layer: "L1", errorName: error.name, at: nowIso(deps) } } });
  if (applied) {
    deps.metrics.failure("L1", error.name);
    deps.metrics.taskEnded("failed");
  }
  await refreshCard(deps, record, { kind: "task" }, heldState(record));
  return record;
}
