import type { TeamSettingsStore } from "./actions";

/**
 * Slack Connect: only members of the workspace the app is installed in may make requests, approve,
 * reject, cancel or rerun — unless an admin allowed their workspace by id (App Home, team settings
 * `allowedExternalTeamIds`). The app is installed per workspace (the manifest has org_deploy_enabled: false).
 */
export interface OrgFacts {
  /** The workspace the app serves here (Bolt's context: `authorizations[0]` of an event, `team.id` of a click). */
  installedTeamId: string;
  /** Its Enterprise Grid organisation, when it is in one. */
  installedEnterpriseId?: string;
  /** The acting user's own workspace: `user_team` / `source_team` of a message, `user.team_id` of a click. */
  userTeamIds: readonly (string | undefined)[];
  /** `is_ext_shared_channel` of the event envelope (messages only; clicks do not carry it). */
  extShared?: boolean;
}

/**
 * The other organisation's workspace the user belongs to, or undefined for a member of ours. Enterprise Grid:
 * a click names the organisation (E…) as the user's team; a message from another workspace of the same
 * organisation, in a channel that is not shared outside it, is one of ours.
 */
export function externalTeamOf(facts: OrgFacts): string | undefined {
  const ours = (id: string) => id === facts.installedTeamId || (facts.installedEnterpriseId !== undefined && id === facts.installedEnterpriseId);
  const theirs = facts.userTeamIds.find((id): id is string => id !== undefined && id !== "" && !ours(id));
  if (theirs === undefined) {
    // A channel shared with another organisation whose message names no team: who sent it cannot be told — refused.
    return facts.extShared === true && facts.userTeamIds.every((id) => id === undefined || id === "") ? "unknown" : undefined;
  }
  if (facts.installedEnterpriseId !== undefined && facts.extShared === false) return undefined;
  return theirs;
}

/**
 * True when the user may use the app here: a member of ours, or of a workspace the admins allowed. A click whose
 * payload names no workspace for its user (`user.team_id` absent) is checked against the installation's team
 * with what Slack says of the user (`userTeam`, users.info with the installation's token): a user Slack does not
 * know there is refused.
 */
export async function mayUseApp(settings: Pick<TeamSettingsStore, "get">, facts: OrgFacts, userTeam?: () => Promise<string | undefined>): Promise<boolean> {
  if (userTeam !== undefined && facts.userTeamIds.every((id) => id === undefined || id === "")) {
    const known = await userTeam();
    if (known === undefined) return false;
    facts = { ...facts, userTeamIds: [known] };
  }
  const external = externalTeamOf(facts);
  if (external === undefined) return true;
  // Only an outsider costs a settings read: the ack path of our own members stays as it is.
  return (await settings.get(facts.installedTeamId)).allowedExternalTeamIds.includes(external);
}
