import type { Task } from "../domain/records";
import type { ActionDeps, Actor } from "./types";

/** Deployment admins (ADMIN_USER_IDS) or the workspace's configured admins. */
export async function isAdmin(deps: Pick<ActionDeps, "adminUserIds" | "settings">, actor: Actor): Promise<boolean> {
  if (deps.adminUserIds.includes(actor.userId)) return true;
  const settings = await deps.settings.get(actor.teamId);
  return settings.adminUserIds.includes(actor.userId);
}

/** DESIGN §6: the requester and the workspace admins may act on a task; nobody else. */
export async function mayActOn(deps: Pick<ActionDeps, "adminUserIds" | "settings">, actor: Actor, task: Task): Promise<boolean> {
  if (actor.userId === task.requesterId) return true;
  return isAdmin(deps, actor);
}

/** The task, only when the actor's workspace owns it: a click from another team sees no task at all. */
export async function loadOwnedTask(deps: Pick<ActionDeps, "store">, actor: Actor, taskId: string): Promise<Task | undefined> {
  const task = await deps.store.getTask(taskId);
  if (task === undefined || task.thread.teamId !== actor.teamId) return undefined;
  return task;
}
