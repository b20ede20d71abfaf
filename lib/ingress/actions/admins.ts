import type { TeamSettings, TeamSettingsStore } from "../../store/team-settings";
import type { Actor } from "./types";

/** What Slack says of a member's role in a workspace (users.info): lib/ingress/user-roles.ts reads it. */
export interface SlackRole {
  /** The member's own workspace: a Slack Connect member from another organisation has theirs, not ours. */
  teamId: string;
  enterpriseId?: string;
  /** is_admin or is_owner (owners are admins) of `teamId`, and not deactivated. */
  isWorkspaceAdmin: boolean;
}

/** Looks a member up in Slack; undefined when Slack does not know the member (or cannot say: see the implementation). */
export type SlackRoleLookup = (actor: Actor) => Promise<SlackRole | undefined>;

/** Who counts as an admin of a workspace (docs/architecture.md, who may act): asked by the actions, App Home and the freee connect flow. */
export interface AdminCheck {
  /** In ADMIN_USER_IDS: an admin of every workspace the deployment serves, known without any call. */
  isListed(userId: string): boolean;
  /** Listed, in the workspace's settings list, or a Slack admin / owner of that same workspace. */
  isAdmin(actor: Actor, settings?: TeamSettings): Promise<boolean>;
  /** The member's own workspace as Slack knows it; undefined when Slack does not know the member. */
  teamOf(actor: Actor): Promise<string | undefined>;
}

export interface AdminDirectoryOptions {
  adminUserIds: readonly string[];
  settings: Pick<TeamSettingsStore, "get">;
  lookup: SlackRoleLookup;
  /** How long a warm instance keeps a users.info answer (default 60 s): a demoted admin loses the right within it. */
  cacheTtlMs?: number;
  clock?: () => number;
}

/**
 * Admins = ADMIN_USER_IDS + the workspace's settings list (App Home) + Slack's own is_admin / is_owner. The
 * cheap sources first: the configured list (no call), the settings item (one read), users.info last (cached).
 * Slack's answer counts only for the workspace it describes: an admin of another organisation is no admin here.
 */
export class AdminDirectory implements AdminCheck {
  private readonly roles = new Map<string, { at: number; role: Promise<SlackRole | undefined> }>();
  private readonly ttlMs: number;
  private readonly clock: () => number;

  constructor(private readonly options: AdminDirectoryOptions) {
    this.ttlMs = options.cacheTtlMs ?? 60_000;
    this.clock = options.clock ?? Date.now;
  }

  isListed(userId: string): boolean {
    return this.options.adminUserIds.includes(userId);
  }

  async isAdmin(actor: Actor, settings?: TeamSettings): Promise<boolean> {
    if (this.isListed(actor.userId)) return true;
    const team = settings ?? (await this.options.settings.get(actor.teamId));
    if (team.adminUserIds.includes(actor.userId)) return true;
    const role = await this.slackRole(actor);
    if (role === undefined || !role.isWorkspaceAdmin) return false;
    // is_admin speaks of the member's own workspace only. The app is installed per workspace (the manifest has
    // org_deploy_enabled: false): an admin of a sibling workspace of the same Enterprise Grid is no admin here.
    return role.teamId === actor.teamId;
  }

  /**
   * The member's own workspace as Slack knows it (users.info, cached like the roles), or undefined when Slack
   * does not know the member: for a click that does not say which workspace its user is from.
   */
  async teamOf(actor: Actor): Promise<string | undefined> {
    return (await this.slackRole(actor))?.teamId;
  }

  private slackRole(actor: Actor): Promise<SlackRole | undefined> {
    const key = `${actor.enterpriseId ?? ""}|${actor.teamId}|${actor.userId}`;
    const now = this.clock();
    const cached = this.roles.get(key);
    if (cached !== undefined && now - cached.at < this.ttlMs) return cached.role;
    // A failed lookup is not kept (the next request asks again); its error goes on to the caller.
    const role: Promise<SlackRole | undefined> = this.options.lookup(actor).catch((err: unknown) => {
      if (this.roles.get(key)?.role === role) this.roles.delete(key);
      throw err;
    });
    this.roles.set(key, { at: now, role });
    if (this.roles.size > 1000) this.roles.delete(this.roles.keys().next().value as string);
    return role;
  }
}
