import { Hono, type Context } from "hono";
import { WebAdminMessages } from "../core/messages/ja";
import type { WebAdminDeps } from "./deps";
import { AdminDataError } from "./errors";
import { safeNext } from "./links";
import { SignInRefusedError } from "./openid";
import { MessagePage, Page } from "./pages/layout";
import { html } from "./render";
import { clearCookie, cookie, readCookie, sameText, SESSION_COOKIE, SESSION_TTL_SECONDS, SIGN_IN_COOKIE, SIGN_IN_TTL_SECONDS } from "./session";

/**
 * /login (the page), /login/slack (to Slack's authorize page with a fresh state and nonce, kept in a signed
 * cookie), /login/callback (state checked, code exchanged, id token verified, workspace installed → session) and
 * POST /logout. The page asked for before sign-in is carried as `next` and returned to.
 */
export function signInRoutes(deps: WebAdminDeps): Hono {
  const app = new Hono();
  const refuse = (c: Context, status: 400 | 403 | 502, text: string, reason: string, extra: Record<string, unknown> = {}) => {
    deps.log.warn("web admin sign-in refused", { layer: "admin", reason, ...extra });
    c.header("set-cookie", clearCookie(SIGN_IN_COOKIE), { append: true });
    return html(c, <MessagePage title={WebAdminMessages.signInTitle} detail={text} link={{ href: "/login", text: "サインイン画面へ" }} />, status);
  };

  app.get("/login", (c) => {
    const next = safeNext(c.req.query("next"));
    if (deps.openId === undefined) return html(c, <MessagePage title={WebAdminMessages.signInTitle} detail={WebAdminMessages.signInNotConfigured} />, 503);
    const signedOut = c.req.query("signed_out") === "1";
    return html(
      c,
      <Page title={WebAdminMessages.signInTitle} {...(signedOut ? { toast: { kind: "info" as const, text: WebAdminMessages.signedOut } } : {})}>
        <p>経理・人事の記録を確認する管理画面です。Slack のアカウントでサインインしてください。</p>
        <p>
          <a class="button" href={`/login/slack?next=${encodeURIComponent(next)}`}>
            {WebAdminMessages.signInWithSlack}
          </a>
        </p>
      </Page>,
    );
  });

  app.get("/login/slack", (c) => {
    if (deps.openId === undefined) return c.redirect("/login", 302);
    const pending = deps.signer.newSignIn(safeNext(c.req.query("next")));
    c.header("set-cookie", cookie(SIGN_IN_COOKIE, deps.signer.sealSignIn(pending), SIGN_IN_TTL_SECONDS));
    return c.redirect(deps.openId.authorizeUrl(pending.state, pending.nonce), 302);
  });

  app.get("/login/callback", async (c) => {
    if (deps.openId === undefined) return c.redirect("/login", 302);
    const pending = deps.signer.openSignIn(readCookie(c.req.header("cookie"), SIGN_IN_COOKIE));
    const state = c.req.query("state");
    const code = c.req.query("code");
    if (c.req.query("error") !== undefined) return refuse(c, 400, WebAdminMessages.signInFailed, "slack_error", { error: c.req.query("error") });
    if (pending === undefined) return refuse(c, 400, WebAdminMessages.signInFailed, "no_pending_sign_in");
    if (state === undefined || !sameText(state, pending.state)) return refuse(c, 400, WebAdminMessages.signInFailed, "state_mismatch");
    if (code === undefined || code === "") return refuse(c, 400, WebAdminMessages.signInFailed, "no_code");
    let identity;
    try {
      identity = await deps.openId.signIn(code, pending.nonce);
    } catch (err) {
      if (err instanceof SignInRefusedError) return refuse(c, 400, WebAdminMessages.signInFailed, err.message, err.details);
      const error = err instanceof Error ? err : new Error(String(err));
      return refuse(c, 502, WebAdminMessages.signInFailed, "slack_unreachable", { error_type: error.name, error_message: error.message });
    }
    if (!(await deps.isInstalled(identity.teamId))) return refuse(c, 403, WebAdminMessages.notInstalled, "not_installed", { teamId: identity.teamId });
    const session = deps.signer.newSession(identity);
    await deps.audit.record({ teamId: session.teamId, action: "admin.signed_in", subject: `session#${session.sid}`, actor: session.userId, layer: "admin", details: {} }).catch((cause: unknown) => {
      throw new AdminDataError("web admin could not record the sign-in", { cause });
    });
    c.header("set-cookie", cookie(SESSION_COOKIE, deps.signer.sealSession(session), SESSION_TTL_SECONDS), { append: true });
    c.header("set-cookie", clearCookie(SIGN_IN_COOKIE), { append: true });
    return c.redirect(pending.next, 302);
  });

  app.post("/logout", async (c) => {
    const session = deps.signer.openSession(readCookie(c.req.header("cookie"), SESSION_COOKIE));
    if (session !== undefined) {
      const form = await c.req.parseBody();
      if (!deps.signer.checkCsrf(session, form._csrf)) return html(c, <MessagePage title={WebAdminMessages.forbidden} detail={WebAdminMessages.csrfRefused} />, 403);
    }
    c.header("set-cookie", clearCookie(SESSION_COOKIE));
    return c.redirect("/login?signed_out=1", 302);
  });
  return app;
}
