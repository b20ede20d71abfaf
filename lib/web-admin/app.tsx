import { Hono, type Context } from "hono";
import { AdminMessages, WebAdminMessages } from "../core/messages/ja";
import { ADMIN_CSS } from "./assets";
import type { AdminRole, WebAdminDeps } from "./deps";
import { AdminDataError, guardReads } from "./errors";
import { MessagePage, type Toast, type Viewer } from "./pages/layout";
import { html } from "./render";
import { securityHeaders } from "./security";
import { readCookie, SESSION_COOKIE, type Session } from "./session";
import { signInRoutes } from "./sign-in";
import { taskRoutes } from "./routes/tasks";
import { reportRoutes } from "./routes/reports";
import { settingsRoutes } from "./routes/settings";
import { policyRoutes } from "./routes/policy";
import { ownEntry } from "../core/own-entry";

export interface AdminEnv {
  Variables: { session: Session; role: AdminRole; viewer: Viewer; form: Record<string, string> };
}
export type AdminContext = Context<AdminEnv>;

/** The toasts a redirect may name (`?notice=`): a fixed list, so no text from a URL reaches a page. */
export const NOTICES: Record<string, Toast> = {
  saved: { kind: "info", text: WebAdminMessages.settingsSaved },
  freee_connected: { kind: "info", text: WebAdminMessages.freeeConnected },
  freee_disconnected: { kind: "info", text: WebAdminMessages.freeeDisconnected },
  freee_auth_failed: { kind: "error", text: AdminMessages.freeeAuthFailed },
  save_failed: { kind: "error", text: AdminMessages.settingsSaveFailed },
};

export function noticeOf(c: AdminContext): Toast | undefined {
  const key = c.req.query("notice");
  return key === undefined ? undefined : ownEntry(NOTICES, key);
}

/**
 * The web admin (docs/web-admin.md) as one Hono app: sign-in at /login, pages under /admin. Every answer carries
 * the security headers; every /admin page needs a session and reads the viewer's role first; every POST carries the
 * session's CSRF token. A failed read anywhere is the 503 page; an unknown path the 404 page.
 */
export function createWebAdmin(input: WebAdminDeps): Hono<AdminEnv> {
  const deps: WebAdminDeps = { ...input, reads: guardReads(input.reads) };
  const app = new Hono<AdminEnv>();
  app.use("*", securityHeaders());
  app.get("/admin/assets/admin.css", (c) => c.body(ADMIN_CSS, 200, { "content-type": "text/css; charset=utf-8" }));
  app.route("/", signInRoutes(deps));

  const signedIn = async (c: AdminContext, next: () => Promise<void>) => {
    const session = deps.signer.openSession(readCookie(c.req.header("cookie"), SESSION_COOKIE));
    if (session === undefined) {
      const url = new URL(c.req.url);
      const next = c.req.method === "GET" ? `${url.pathname}${url.search}` : "/admin";
      return c.redirect(`/login?next=${encodeURIComponent(next)}`, 302);
    }
    if (c.req.method === "POST") {
      // A <select multiple> posts its name once per choice: those values joined by newlines (the id lists split them).
      const form = await c.req.parseBody({ all: true });
      const fields: Record<string, string> = {};
      for (const [name, value] of Object.entries(form)) {
        const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string");
        if (values.length > 0) fields[name] = values.join("\n");
      }
      if (!deps.signer.checkCsrf(session, fields._csrf)) {
        deps.log.warn("web admin POST refused: CSRF token missing or not the session's", { teamId: session.teamId, path: url(c) });
        return html(c, <MessagePage title={WebAdminMessages.forbidden} detail={WebAdminMessages.csrfRefused} />, 403);
      }
      c.set("form", fields);
    }
    const settings = await deps.reads.settings(session.teamId);
    const role = await deps.roleOf(session, settings).catch((err: unknown) => {
      // Slack could not say whether the viewer is an admin: they see what a member sees (fails closed), logged.
      deps.log.error("web admin could not tell the viewer's role", { layer: "admin", teamId: session.teamId, error_type: err instanceof Error ? err.name : "unknown", error_message: err instanceof Error ? err.message : String(err) });
      return "member" as const;
    });
    c.set("session", session);
    c.set("role", role);
    c.set("viewer", { name: session.name, role, csrf: deps.signer.csrfToken(session) });
    await next();
  };
  app.use("/admin", signedIn);
  app.use("/admin/*", signedIn);
  app.get("/admin", (c) => c.redirect(c.get("role") === "member" ? "/admin/tasks" : "/admin/dashboard", 302));
  app.route("/", taskRoutes(deps));
  app.route("/", reportRoutes(deps));
  app.route("/", settingsRoutes(deps));
  app.route("/", policyRoutes(deps));

  app.notFound((c) => html(c, <MessagePage title={AdminMessages.notFound} link={{ href: "/admin", text: "管理画面のトップへ" }} />, 404));
  app.onError((err, c) => {
    const fields = { layer: "admin", path: new URL(c.req.url).pathname, error_type: err.name, error_message: err.message };
    if (err instanceof AdminDataError) {
      deps.log.error("web admin could not read the table", { ...fields, cause_type: err.cause instanceof Error ? err.cause.name : "unknown" });
      return html(c, <MessagePage title={AdminMessages.databaseUnreachable} detail="しばらくしてから、もう一度開いてください。" />, 503);
    }
    deps.log.error("web admin request failed", fields);
    return html(c, <MessagePage title="エラーが発生しました" detail="しばらくしてから、もう一度お試しください。" />, 500);
  });
  return app;
}

function url(c: AdminContext): string {
  return new URL(c.req.url).pathname;
}

/** Only these roles may open the route; others get the 403 page (a member never learns what is there). */
export function allow(c: AdminContext, ...roles: AdminRole[]): Response | undefined {
  if (roles.includes(c.get("role"))) return undefined;
  return html(c, <MessagePage title={WebAdminMessages.forbidden} viewer={c.get("viewer")} />, 403);
}
