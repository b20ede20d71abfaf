import { Hono } from "hono";
import { AccessMessages, AdminMessages, HomeTexts } from "../../core/messages/ja";
import { SLACK_TEAM_ID, type TeamSettings } from "../../store/team-settings";
import { allow, noticeOf, type AdminContext, type AdminEnv } from "../app";
import type { WebAdminDeps } from "../deps";
import { jst } from "../labels";
import { Page, type Toast } from "../pages/layout";
import { html } from "../render";
import { PolicyForm } from "./policy";

const USER_ID = /^[UW][A-Z0-9]+$/;
/** Set when the freee connect flow starts here: its callback then returns to this page with a toast. */
export const FREEE_RETURN_COOKIE = "__Host-admin_freee_return";

type FreeeView = Awaited<ReturnType<NonNullable<WebAdminDeps["freee"]["getConnectionStatus"]>>> | undefined;

/**
 * 設定 (admins only): who may approve besides the requester, the allowed Slack Connect workspaces, the freee
 * connection. Each change is audited (`settings.*`, `freee.disconnected`). A failed save answers the same page with
 * the toast 「設定の保存に失敗しました」 and the form as it was typed.
 */
export function settingsRoutes(deps: WebAdminDeps): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();

  const show = async (c: AdminContext, status: 200 | 400 | 503, toast: Toast | undefined, typed: { approvers?: string; externalTeams?: string } = {}) => {
    const session = c.get("session");
    const settings = await deps.reads.settings(session.teamId);
    const freee = await freeeStatus(deps, session.teamId);
    return html(c, <SettingsPage c={c} settings={settings} freee={freee} toast={toast} typed={typed} />, status);
  };

  app.get("/admin/settings", async (c) => allow(c, "admin") ?? (await show(c, 200, noticeOf(c))));

  const save = (field: "approvers" | "externalTeams") => async (c: AdminContext) => {
    const refused = allow(c, "admin");
    if (refused !== undefined) return refused;
    const session = c.get("session");
    const raw = c.get("form")[field] ?? "";
    const ids = raw.split(/[\s,、]+/).filter((s) => s !== "");
    const valid = field === "approvers" ? ids.every((id) => USER_ID.test(id)) : ids.every((id) => SLACK_TEAM_ID.test(id));
    if (!valid) {
      const why = field === "approvers" ? "ユーザー ID の形式が正しくありません（例: U0123ABCD）。" : AccessMessages.externalTeamsInvalid;
      return show(c, 400, { kind: "error", text: `${AdminMessages.settingsSaveFailed}。${why}` }, { [field]: raw });
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
      deps.log.error("web admin settings save failed", { layer: "admin", teamId: session.teamId, field, error_type: err instanceof Error ? err.name : "unknown", error_message: err instanceof Error ? err.message : String(err) });
      // The form is drawn again from what was typed (a table that cannot be read at all is the 503 page instead).
      return show(c, 503, { kind: "error", text: AdminMessages.settingsSaveFailed }, { [field]: raw });
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
      deps.log.error("web admin freee disconnect failed", { layer: "admin", teamId: session.teamId, error_type: err instanceof Error ? err.name : "unknown", error_message: err instanceof Error ? err.message : String(err) });
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

function SettingsPage(props: { c: AdminContext; settings: TeamSettings; freee: FreeeView; toast: Toast | undefined; typed: { approvers?: string; externalTeams?: string } }) {
  const { settings, freee, typed } = props;
  const viewer = props.c.get("viewer");
  return (
    <Page title="設定" viewer={viewer} toast={props.toast}>
      <form method="post" action="/admin/settings/approvers">
        <fieldset>
          <legend>管理者（{HomeTexts.adminsRole}）</legend>
          <input type="hidden" name="_csrf" value={viewer.csrf} />
          <label for="approvers">Slack のユーザー ID（カンマまたは改行区切り）</label>
          <textarea id="approvers" name="approvers" rows={3}>
            {typed.approvers ?? settings.adminUserIds.join("\n")}
          </textarea>
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
      <PolicyForm policy={settings.approvalPolicy} csrf={viewer.csrf} />
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
