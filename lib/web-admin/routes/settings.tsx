import { Hono } from "hono";
import { AccessMessages, AdminMessages, HomeTexts, WebAdminMessages } from "../../core/messages/ja";
import { SLACK_TEAM_ID, type TeamSettings } from "../../store/team-settings";
import { allow, noticeOf, type AdminContext, type AdminEnv } from "../app";
import type { WebAdminDeps } from "../deps";
import { jst } from "../labels";
import { Page, type Toast } from "../pages/layout";
import { html } from "../render";
import type { People } from "../people";
import { ApproverPicker } from "../pages/people";
import { draftOf, PolicyForm, splitIds, StoredPolicy, type FieldProblem, type PolicyDraft } from "../pages/policy-form";

const USER_ID = /^[UW][A-Z0-9]+$/;
/** Set when the freee connect flow starts here: its callback then returns to this page with a toast. */
export const FREEE_RETURN_COOKIE = "__Host-admin_freee_return";

type FreeeView = Awaited<ReturnType<NonNullable<WebAdminDeps["freee"]["getConnectionStatus"]>>> | undefined;

/** What a refused save draws again as it was posted (the other forms show what is stored). */
export interface Typed {
  approvers?: string[];
  externalTeams?: string;
  policy?: { draft: PolicyDraft; problem?: FieldProblem; showStored?: boolean };
}

/**
 * 設定, drawn with `status` and `toast`: the stored settings, the approver fields offering the workspace's people
 * (or the id fields, and why), and any form of `typed` as it was posted. A Slack failure listing the people is
 * audited (`error.admin`); the page still opens.
 */
export async function renderSettings(deps: WebAdminDeps, c: AdminContext, status: 200 | 400 | 409 | 503, toast: Toast | undefined, typed: Typed = {}) {
  const session = c.get("session");
  const [settings, freee, people] = await Promise.all([deps.reads.settings(session.teamId), freeeStatus(deps, session.teamId), deps.people.of(session.teamId)]);
  if (people.failure !== undefined) await recordFailure(deps, c, "people", people.failure, WebAdminMessages.peopleUnavailable);
  return html(c, <SettingsPage c={c} settings={settings} freee={freee} people={people} toast={toast} typed={typed} />, status);
}

/** A save the table (or Slack) refused: logged, and on the audit log as `error.admin` (the ledger counts it). */
export async function recordFailure(deps: WebAdminDeps, c: AdminContext, setting: string, err: unknown, userMessage?: string): Promise<void> {
  const session = c.get("session");
  deps.log.error("web admin settings failed", { layer: "admin", teamId: session.teamId, setting, error_type: err instanceof Error ? err.name : "unknown", error_message: err instanceof Error ? err.message : String(err) });
  await deps.audit
    .recordError({ teamId: session.teamId, layer: "admin", subject: `settings#${setting}#${session.userId}#${new Date().toISOString()}`, actor: session.userId, error: err, details: { setting, via: "web_admin", ...(userMessage === undefined ? {} : { userMessage }) } })
    .catch((auditErr: unknown) => deps.log.error("audit of the web admin's failure failed", { layer: "admin", error_type: auditErr instanceof Error ? auditErr.name : "unknown" }));
}

/**
 * 設定 (admins only): who may approve besides the requester, the allowed Slack Connect workspaces, the freee
 * connection. Each change is audited (`settings.*`, `freee.disconnected`). A failed save answers the same page with
 * the toast 「設定の保存に失敗しました」 and the form as it was typed.
 */
export function settingsRoutes(deps: WebAdminDeps): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  const show = (c: AdminContext, status: 200 | 400 | 503, toast: Toast | undefined, typed: Typed = {}) => renderSettings(deps, c, status, toast, typed);

  app.get("/admin/settings", async (c) => allow(c, "admin") ?? (await show(c, 200, noticeOf(c))));

  const save = (field: "approvers" | "externalTeams") => async (c: AdminContext) => {
    const refused = allow(c, "admin");
    if (refused !== undefined) return refused;
    const session = c.get("session");
    const raw = c.get("form")[field] ?? "";
    const ids = splitIds(raw);
    const typed: Typed = field === "approvers" ? { approvers: ids } : { externalTeams: raw };
    const valid = field === "approvers" ? ids.every((id) => USER_ID.test(id)) : ids.every((id) => SLACK_TEAM_ID.test(id));
    if (!valid) {
      const why = field === "approvers" ? WebAdminMessages.badAdminId : AccessMessages.externalTeamsInvalid;
      return show(c, 400, { kind: "error", text: `${AdminMessages.settingsSaveFailed}。${why}` }, typed);
    }
    try {
      const before = await deps.reads.settings(session.teamId);
      const saved = field === "approvers" ? await deps.writes.saveApprovers(session.teamId, ids, session.userId) : await deps.writes.saveExternalTeams(session.teamId, ids, session.userId);
      const [was, now] = field === "approvers" ? [before.adminUserIds, saved.adminUserIds] : [before.allowedExternalTeamIds, saved.allowedExternalTeamIds];
      await deps.audit.record({
        teamId: session.teamId,
        action: field === "approvers" ? "settings.approvers_saved" : "settings.external_teams_saved",
        subject: `${field}@${saved.updatedAt ?? new Date().toISOString()}`,
        actor: session.userId,
        layer: "admin",
        details: { before: was, after: now, via: "web_admin" },
      });
    } catch (err) {
      const text = `${AdminMessages.settingsSaveFailed}。${WebAdminMessages.saveUnavailable}`;
      await recordFailure(deps, c, field, err, text);
      // The form is drawn again from what was typed (a table that cannot be read at all is the 503 page instead).
      return show(c, 503, { kind: "error", text }, typed);
    }
    return c.redirect("/admin/settings?notice=saved", 303);
  };
  app.post("/admin/settings/approvers", save("approvers"));
  app.post("/admin/settings/external-teams", save("externalTeams"));

  app.get("/admin/settings/freee/connect", async (c) => {
    const refused = allow(c, "admin");
    if (refused !== undefined) return refused;
    if (deps.freee.buildConnectUrl === undefined) return c.redirect("/admin/settings?notice=freee_auth_failed", 302);
    const url = await deps.freee.buildConnectUrl(c.get("session").teamId, c.get("session").userId);
    c.header("set-cookie", `${FREEE_RETURN_COOKIE}=1; Path=/; Max-Age=900; HttpOnly; Secure; SameSite=Lax`);
    return c.redirect(url, 302);
  });

  app.post("/admin/settings/freee/disconnect", async (c) => {
    const refused = allow(c, "admin");
    if (refused !== undefined) return refused;
    const session = c.get("session");
    try {
      if (deps.freee.disconnect === undefined) throw new Error("freee disconnect is not wired in");
      const result = await deps.freee.disconnect(session.teamId, session.userId);
      if (result.disconnected) {
        await deps.audit.record({ teamId: session.teamId, action: "freee.disconnected", subject: `connection#v${result.version}`, actor: session.userId, layer: "admin", details: { version: result.version, via: "web_admin" } });
      }
    } catch (err) {
      await recordFailure(deps, c, "freee_disconnect", err, AdminMessages.settingsSaveFailed);
      return show(c, 503, { kind: "error", text: AdminMessages.settingsSaveFailed });
    }
    return c.redirect("/admin/settings?notice=freee_disconnected", 303);
  });
  return app;
}

async function freeeStatus(deps: WebAdminDeps, teamId: string): Promise<FreeeView> {
  if (deps.freee.getConnectionStatus === undefined) return undefined;
  return deps.freee.getConnectionStatus(teamId);
}

const FREEE_STATUS: Record<string, string> = { connected: "接続済み", reauth_required: "再接続が必要", not_connected: "未接続" };

function SettingsPage(props: { c: AdminContext; settings: TeamSettings; freee: FreeeView; people: People; toast: Toast | undefined; typed: Typed }) {
  const { settings, freee, typed, people } = props;
  const viewer = props.c.get("viewer");
  return (
    <Page title="設定" viewer={viewer} toast={props.toast}>
      {people.kind === "typed" ? (
        <p class="notice" id="people-fallback">
          {people.why}
        </p>
      ) : null}
      <form method="post" action="/admin/settings/approvers">
        <fieldset>
          <legend>管理者（{HomeTexts.adminsRole}）</legend>
          <input type="hidden" name="_csrf" value={viewer.csrf} />
          <ApproverPicker name="approvers" label="管理者にするメンバー" chosen={typed.approvers ?? settings.adminUserIds} people={people} groups={false} />
          <p>
            <button type="submit">保存</button>
          </p>
        </fieldset>
      </form>
      <form method="post" action="/admin/settings/external-teams">
        <fieldset>
          <legend>{HomeTexts.externalTeamsLabel}</legend>
          <input type="hidden" name="_csrf" value={viewer.csrf} />
          <label for="externalTeams">ワークスペース ID（カンマまたは改行区切り）。空にすると外部組織のユーザーはすべて拒否されます。</label>
          <textarea id="externalTeams" name="externalTeams" rows={2}>
            {typed.externalTeams ?? settings.allowedExternalTeamIds.join("\n")}
          </textarea>
          <p>
            <button type="submit">保存</button>
          </p>
        </fieldset>
      </form>
      <PolicyForm draft={typed.policy?.draft ?? draftOf(settings.approvalPolicy)} csrf={viewer.csrf} people={people} problem={typed.policy?.problem} />
      {typed.policy?.showStored === true ? <StoredPolicy policy={settings.approvalPolicy} people={people} /> : null}
      <fieldset>
        <legend>freee の接続</legend>
        <p id="freee-status">
          {freee === undefined ? "freee の接続は設定されていません。" : `${FREEE_STATUS[freee.status] ?? freee.status}${freee.companyName === undefined ? "" : `（事業所: ${freee.companyName}）`}`}
          {freee?.refreshTokenExpiresAt === undefined ? "" : ` / 再接続の期限 ${jst(freee.refreshTokenExpiresAt)}`}
        </p>
        <p>
          <a href="/admin/settings/freee/connect">{freee?.status === "connected" ? "別の事業所に接続し直す" : "freee に接続"}</a>
        </p>
        {freee?.status === "not_connected" || freee === undefined ? null : (
          <form method="post" action="/admin/settings/freee/disconnect">
            <input type="hidden" name="_csrf" value={viewer.csrf} />
            <p class="muted">{HomeTexts.disconnectConfirm}</p>
            <button type="submit">接続を解除</button>
          </form>
        )}
      </fieldset>
      {settings.updatedAt === undefined ? null : (
        <p class="muted">
          最終更新: {jst(settings.updatedAt)}（{settings.updatedBy ?? "—"}）
        </p>
      )}
    </Page>
  );
}
