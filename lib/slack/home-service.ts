import type { Logger } from "@aws-lambda-powertools/logger";
import type { WebClient } from "@slack/web-api";
import { isAdmin, type TeamSettingsStore } from "../actions";
import type { TaskStore } from "../store/task-store";
import type { FreeePort } from "./freee-port";
import { buildLedger } from "../report/ledger";
import { buildHomeView, HomeErrors, type FreeeLapse, type FreeeStatusView, type HomeState } from "./home";

export interface HomeDeps {
  store: Pick<TaskStore, "listRecentTasks" | "listAuditByTeam">;
  settings: TeamSettingsStore;
  adminUserIds: readonly string[];
  freee: FreeePort;
  log: Logger;
  clock?: () => Date;
}

const FAILURE_WINDOW_DAYS = 30;

/** Gather what App Home shows; a DynamoDB failure becomes the seed §9.2 「データベースに接続できません」. */
export async function loadHomeState(deps: HomeDeps, teamId: string, userId: string, notice?: string): Promise<HomeState> {
  try {
    const now = (deps.clock ?? (() => new Date()))();
    const since = new Date(now.getTime() - FAILURE_WINDOW_DAYS * 86_400_000).toISOString();
    const [settings, viewerIsAdmin, recentTasks, audit, freee] = await Promise.all([
      deps.settings.get(teamId),
      isAdmin({ adminUserIds: deps.adminUserIds, settings: deps.settings }, { teamId, userId }),
      deps.store.listRecentTasks(teamId, 10),
      deps.store.listAuditByTeam(teamId, { since }),
      freeeStatus(deps, teamId, userId),
    ]);
    return {
      kind: "ok",
      data: { viewerIsAdmin, freee, adminUserIds: settings.adminUserIds, recentTasks, ledger: buildLedger(audit, { since, until: now.toISOString() }) },
      ...(notice === undefined ? {} : { notice }),
    };
  } catch (err) {
    deps.log.error("App Home could not read the table", {
      layer: "admin",
      error_type: err instanceof Error ? err.name : "unknown",
      error_message: err instanceof Error ? err.message : String(err),
      teamId,
    });
    return { kind: "error", message: HomeErrors.databaseUnreachable };
  }
}

/** The freee part of App Home. Its failure (freee settings missing, KMS down) shows as "unknown", not as a DB error. */
async function freeeStatus(deps: HomeDeps, teamId: string, userId: string): Promise<FreeeStatusView> {
  if (deps.freee.getConnectionStatus === undefined) return { status: "unknown" };
  try {
    const status = await deps.freee.getConnectionStatus(teamId);
    const connectUrl = deps.freee.buildConnectUrl === undefined ? undefined : await deps.freee.buildConnectUrl(teamId, userId);
    const lapse = status.status === "connected" ? lapseOf(status.refreshTokenExpiresAt, (deps.clock ?? (() => new Date()))()) : undefined;
    return {
      status: status.status,
      ...(status.companyName === undefined ? {} : { companyName: status.companyName }),
      ...(connectUrl === undefined ? {} : { connectUrl }),
      ...(lapse === undefined ? {} : { lapse }),
      ...(status.reauthReason === undefined ? {} : { reauthReason: status.reauthReason }),
    };
  } catch (err) {
    deps.log.error("freee connection status unavailable", {
      layer: "freee",
      error_type: err instanceof Error ? err.name : "unknown",
      error_message: err instanceof Error ? err.message : String(err),
      teamId,
    });
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

export async function publishHome(client: WebClient, deps: HomeDeps, teamId: string, userId: string, notice?: string): Promise<void> {
  const state = await loadHomeState(deps, teamId, userId, notice);
  await client.views.publish({ user_id: userId, view: buildHomeView(state) });
}

/**
 * Save "who may approve" from App Home. Only admins may change it; a failed save re-publishes the Home with
 * 「設定の保存に失敗しました」 (seed §9.2) and the settings as they were.
 */
export async function saveAdminsFromHome(
  client: WebClient,
  deps: HomeDeps,
  actor: { teamId: string; userId: string },
  selectedUserIds: string[],
): Promise<"saved" | "refused" | "failed"> {
  let outcome: "saved" | "refused" | "failed";
  try {
    if (!(await isAdmin({ adminUserIds: deps.adminUserIds, settings: deps.settings }, actor))) outcome = "refused";
    else {
      await deps.settings.save(actor.teamId, selectedUserIds, actor.userId);
      outcome = "saved";
    }
  } catch (err) {
    deps.log.error("saving team settings failed", {
      layer: "admin",
      error_type: err instanceof Error ? err.name : "unknown",
      error_message: err instanceof Error ? err.message : String(err),
      teamId: actor.teamId,
    });
    outcome = "failed";
  }
  await publishHome(client, deps, actor.teamId, actor.userId, outcome === "failed" ? HomeErrors.settingsSaveFailed : undefined);
  return outcome;
}
