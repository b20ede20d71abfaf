import type { Actor } from "../ingress/actions/types";
import type { UsergroupCheck } from "../ingress/usergroups";
import { POLICY_DOMAINS } from "../core/domain/approval-policy";
import type { TeamSettings } from "../store/team-settings";
import type { AdminRole } from "./deps";

/**
 * The viewer's role: an admin exactly as App Home decides (AdminDirectory.isAdmin: ADMIN_USER_IDS, the
 * workspace's list, Slack's admins and owners of this workspace); else an approver when the approval policy names
 * them for some domain, by id or through one of its Slack user groups; else a member.
 */
export function roleResolver(admins: { isAdmin(actor: Actor, settings?: TeamSettings): Promise<boolean> }, usergroups: UsergroupCheck) {
  return async (who: Pick<Actor, "teamId" | "userId">, settings: TeamSettings): Promise<AdminRole> => {
    const actor = { teamId: who.teamId, userId: who.userId };
    if (await admins.isAdmin(actor, settings)) return "admin";
    const sets = POLICY_DOMAINS.map((d) => settings.approvalPolicy.approvers[d]);
    if (sets.some((s) => s.userIds.includes(who.userId))) return "approver";
    for (const group of new Set(sets.flatMap((s) => s.usergroupIds))) if (await usergroups.isMember(actor, group)) return "approver";
    return "member";
  };
}
