import type { Actor } from "../ingress/actions/types";
import type { TeamSettings } from "../store/team-settings";
import type { AdminRole } from "./deps";

/** The members an approval policy names as approvers of some domain (none before a policy is saved). */
export function approverUserIds(settings: TeamSettings): Set<string> {
  // The policy is optional on stored settings; each domain's set names members by id.
  const policy = (settings as { approvalPolicy?: { approvers?: Record<string, { userIds?: readonly string[] }> } }).approvalPolicy;
  return new Set(Object.values(policy?.approvers ?? {}).flatMap((set) => set.userIds ?? []));
}

/**
 * The viewer's role: an admin exactly as App Home decides (AdminDirectory.isAdmin: ADMIN_USER_IDS, the
 * workspace's list, Slack's admins and owners of this workspace); else an approver when the approval policy names
 * them; else a member.
 */
export function roleResolver(admins: { isAdmin(actor: Actor, settings?: TeamSettings): Promise<boolean> }) {
  return async (who: Pick<Actor, "teamId" | "userId">, settings: TeamSettings): Promise<AdminRole> => {
    if (await admins.isAdmin({ teamId: who.teamId, userId: who.userId }, settings)) return "admin";
    return approverUserIds(settings).has(who.userId) ? "approver" : "member";
  };
}
