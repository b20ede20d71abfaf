import type { Task } from "../../core/domain/records";
import type { ActionDeps, Actor } from "./types";

/**
 * docs/architecture.md (who may act): the requester and the workspace admins (lib/ingress/actions/admins.ts) may act on a task; nobody else. The
 * requester costs nothing more; only another clicker is looked up.
 */
export async function mayActOn(deps: Pick<ActionDeps, "admins">, actor: Actor, task: Task): Promise<boolean> {
  if (actor.userId === task.requesterId) return true;
  return deps.admins.isAdmin(actor);
}

/** The task, only when the actor's workspace owns it: a click from another team sees no task at all. */
export async function loadOwnedTask(deps: Pick<ActionDeps, "store">, actor: Actor, taskId: string): Promise<Task | undefined> {
  const task = await deps.store.getTask(taskId);
  if (task === undefined || task.thread.teamId !== actor.teamId) return undefined;
  return task;
}
