import type { Logger } from "@aws-lambda-powertools/logger";
import type { WebClient } from "@slack/web-api";
import { SLACK_TEAM_ID, type Actor, type AdminCheck, type TeamSettingsStore } from "./actions";
import type { AuditLog } from "../store/audit-log";
import { FatalConfigError } from "../core/errors/taxonomy";
import { AccessMessages, HomeTexts } from "../core/messages/ja";
import type { TaskStore } from "../store/task-store";
import type { Task } from "../core/domain/records";
import type { FreeePort } from "./freee-port";
import { buildLedger } from "../store/ledger";
import { buildHomeView, HomeErrors, type FreeeLapse, type FreeeStatusView, type HomeState } from "./home";

export interface HomeDeps {
  store: Pick<TaskStore, "listRecentTasks" | "listRecentTasksBy" | "listAuditByTeam">;
  settings: TeamSettingsStore;
  admins: AdminCheck;
  freee: FreeePort;
  audit: Pick<AuditLog, "record" | "recordError">;
  log: Logger;
  clock?: () => Date;
  /** The web admin (`…/admin`), linked from the Home; absent: no link. */
  adminUrl?: string;
}

const FAILURE_WINDOW_DAYS = 30;
const RECENT_TASKS = 10;

/** A message's permalink as Slack gives it (chat.getPermalink): Home links each recent task to its thread. */
export type ThreadLinker = (channelId: string, messageTs: string) => Promise<string>;

export function slackThreadLinker(client: Pick<WebClient, "chat">): ThreadLinker {
  return async (channel, messageTs) => {
    const out = await client.chat.getPermalink({ channel, message_ts: messageTs });
    if (typeof out.permalink !== "string") throw new FatalConfigError("chat.getPermalink answered without a permalink", { details: { channel } });
    return out.permalink;
  };
}

/** Gather what App Home shows; a DynamoDB failure becomes 「データベースに接続できません」 (docs/architecture.md, messages). */
export async function loadHomeState(deps: HomeDeps, viewer: Actor, notice?: string, linker?: ThreadLinker): Promise<HomeState> {
  const { teamId, userId } = viewer;
  try {
    const now = (deps.clock ?? (() => new Date()))();
    const since = new Date(now.getTime() - FAILURE_WINDOW_DAYS * 86_400_000).toISOString();
    const role = (async () => {
      const settings = await deps.settings.get(teamId);
      // Slack unreachable for users.info: the viewer is shown what a member sees (fails closed), and it is logged.
      const viewerIsAdmin = await deps.admins.isAdmin(viewer, settings).catch((err: unknown) => {
        logFailure(deps, "App Home could not tell whether the viewer is an admin", err, teamId);
        return false;
      });
      return { settings, viewerIsAdmin };
    })();
    // Who sees which tasks: an admin the workspace's, a member only their own — so a request made in a
    // DM reaches nobody's Home but its requester's and the admins'.
    const tasks = role.then(({ viewerIsAdmin }) =>
      viewerIsAdmin ? deps.store.listRecentTasks(teamId, RECENT_TASKS) : deps.store.listRecentTasksBy(teamId, userId, RECENT_TASKS),
    );
    const [{ settings, viewerIsAdmin }, recentTasks, audit, freee, threadLinks] = await Promise.all([
      role,
      tasks,
      deps.store.listAuditByTeam(teamId, { since }),
      role.then((r) => freeeStatus(deps, teamId, userId, r.viewerIsAdmin)),
      tasks.then((list) => linkThreads(deps, list, linker)),
    ]);
    return {
      kind: "ok",
      data: {
        viewerIsAdmin,
        freee,
        ...(deps.adminUrl === undefined ? {} : { adminUrl: deps.adminUrl }),
        adminUserIds: settings.adminUserIds,
        approvalPolicy: settings.approvalPolicy,
        allowedExternalTeamIds: settings.allowedExternalTeamIds,
        recentTasks,
        threadLinks,
        ledger: buildLedger(audit, { since, until: now.toISOString() }),
      },
      ...(notice === undefined ? {} : { notice }),
    };
  } catch (err) {
    logFailure(deps, "App Home could not read the table", err, teamId);
    return { kind: "error", message: HomeErrors.databaseUnreachable };
  }
}

/**
 * Each recent task's thread link. A link Slack will not give (the request deleted, the channel left) leaves that
 * task unlinked and is logged; Home still shows it.
 */
async function linkThreads(deps: HomeDeps, tasks: readonly Task[], linker: ThreadLinker | undefined): Promise<Record<string, string>> {
  if (linker === undefined) return {};
  const links = await Promise.all(
    tasks.slice(0, RECENT_TASKS).map(async (t) => {
      try {
        return [t.taskId, await linker(t.thread.channelId, t.thread.messageTs)] as const;
      } catch (err) {
        logFailure(deps, "App Home could not link a task to its thread", err, t.thread.teamId);
        return undefined;
      }
    }),
  );
  return Object.fromEntries(links.filter((l) => l !== undefined));
}

/** The freee part of App Home. Its failure (freee settings missing, KMS down) shows as "unknown", not as a DB error. */
async function freeeStatus(deps: HomeDeps, teamId: string, userId: string, viewerIsAdmin: boolean): Promise<FreeeStatusView> {
  if (deps.freee.getConnectionStatus === undefined) return { status: "unknown" };
  try {
    const status = await deps.freee.getConnectionStatus(teamId);
    // The signed connect link is made for admins only: a member never holds one.
    const connectUrl = !viewerIsAdmin || deps.freee.buildConnectUrl === undefined ? undefined : await deps.freee.buildConnectUrl(teamId, userId);
    const lapse = status.status === "connected" ? lapseOf(status.refreshTokenExpiresAt, (deps.clock ?? (() => new Date()))()) : undefined;
    return {
      status: status.status,
      ...(status.companyName === undefined ? {} : { companyName: status.companyName }),
      ...(connectUrl === undefined ? {} : { connectUrl }),
      ...(lapse === undefined ? {} : { lapse }),
      ...(status.reauthReason === undefined ? {} : { reauthReason: status.reauthReason }),
    };
  } catch (err) {
    logFailure(deps, "freee connection status unavailable", err, teamId);
    return { status: "unknown" };
  }
}

/**
 * Warn when the refresh token has at most this many days left. The daily refresh renews it at 60 days of age
 * (30 left), so a warning means the refresh has been failing for over a week.
 */
export const FREEE_LAPSE_WARNING_DAYS = 21;

function lapseOf(expiresAt: string | undefined, now: Date): FreeeLapse | undefined {
  if (expiresAt === undefined) return { kind: "unknown_age" };
  const daysLeft = Math.floor((Date.parse(expiresAt) - now.getTime()) / 86_400_000);
  return daysLeft <= FREEE_LAPSE_WARNING_DAYS ? { kind: "lapsing", expiresAt, daysLeft } : undefined;
}

export async function publishHome(client: WebClient, deps: HomeDeps, viewer: Actor, notice?: string): Promise<void> {
  const state = await loadHomeState(deps, viewer, notice, slackThreadLinker(client));
  await client.views.publish({ user_id: viewer.userId, view: buildHomeView(state) });
}

export type HomeChangeOutcome = "saved" | "refused" | "invalid" | "failed";

/**
 * One admin-only change from App Home: checked, applied, then the Home re-published with what happened. A
 * refusal or a bad value changes nothing; a failed save shows 「設定の保存に失敗しました」 (docs/architecture.md, messages).
 */
async function adminChange(client: WebClient, deps: HomeDeps, actor: Actor, apply: () => Promise<string | undefined>): Promise<HomeChangeOutcome> {
  let outcome: HomeChangeOutcome;
  let notice: string | undefined;
  try {
    if (!(await deps.admins.isAdmin(actor))) [outcome, notice] = ["refused", AccessMessages.adminOnlyChange];
    else [outcome, notice] = ["saved", await apply()];
  } catch (err) {
    logFailure(deps, "App Home change failed", err, actor.teamId);
    [outcome, notice] = ["failed", HomeErrors.settingsSaveFailed];
  }
  await publishHome(client, deps, actor, notice);
  return outcome;
}

/** Save "who may approve" from App Home (admins only). */
export function saveAdminsFromHome(client: WebClient, deps: HomeDeps, actor: Actor, selectedUserIds: string[]): Promise<HomeChangeOutcome> {
  return adminChange(client, deps, actor, async () => {
    await deps.settings.save(actor.teamId, selectedUserIds, actor.userId);
    return undefined;
  });
}

/** Save the allowed Slack Connect workspaces from App Home (admins only); a malformed id saves nothing. */
export async function saveExternalTeamsFromHome(client: WebClient, deps: HomeDeps, actor: Actor, raw: string): Promise<HomeChangeOutcome> {
  const ids = raw.split(/[\s,、]+/).filter((s) => s !== "");
  if (ids.some((id) => !SLACK_TEAM_ID.test(id))) {
    await publishHome(client, deps, actor, AccessMessages.externalTeamsInvalid);
    return "invalid";
  }
  return adminChange(client, deps, actor, async () => {
    await deps.settings.saveAllowedExternalTeams(actor.teamId, ids, actor.userId);
    return undefined;
  });
}

/** Disconnect the workspace from freee (admins only), audited as `freee.disconnected`. */
export function disconnectFreeeFromHome(client: WebClient, deps: HomeDeps, actor: Actor): Promise<HomeChangeOutcome> {
  return adminChange(client, deps, actor, async () => {
    if (deps.freee.disconnect === undefined) throw new FatalConfigError("freee disconnect is not wired in", { details: { setting: "freee" } });
    const result = await deps.freee.disconnect(actor.teamId, actor.userId);
    if (!result.disconnected) return undefined; // already disconnected (a double click)
    await deps.audit.record({ teamId: actor.teamId, action: "freee.disconnected", subject: `connection#v${result.version}`, actor: actor.userId, layer: "admin", details: { version: result.version } });
    return HomeTexts.disconnected;
  });
}

function logFailure(deps: HomeDeps, message: string, err: unknown, teamId: string): void {
  deps.log.error(message, {
    layer: "admin",
    error_type: err instanceof Error ? err.name : "unknown",
    error_message: err instanceof Error ? err.message : String(err),
    teamId,
  });
}
