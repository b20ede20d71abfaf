import { randomBytes } from "node:crypto";
import type { Logger } from "@aws-lambda-powertools/logger";
import * as z from "../core/zod";
import { AuditLog } from "../store/audit-log";
import { intEnv, optionalEnv, type Env } from "../core/config/env";
import { resolveSecret } from "../core/config/secrets";
import { classifyHttpStatus } from "../core/errors/classify";
import { AuthError, ConnectionFailedError, FatalConfigError, MalformedOutputError } from "../core/errors/taxonomy";
import { redactString } from "../core/redaction/redact";
import { buildConnectLink, connectLinkTtl, MAX_CONNECT_LINK_TTL_SECONDS } from "./connect-link";
import { OneTimeUses } from "../store/freee-one-time-uses";
import { FreeeConnectionStore, refreshTokenExpiresAt } from "../store/freee-connections";
import { adminOnlyPage, failurePage, successPage } from "./oauth-pages";
import { signState, verifyState, type SignedClaims } from "./signed-state";
import { FreeeTokenEndpoint } from "./token-endpoint";

/**
 * Per-workspace freee OAuth connect (routes on the ingress Function URL).
 *   App Home button → GET /freee/connect?team&user&exp&sig (signed link, bound to workspace and user)
 *   → 302 to freee's authorize page with a signed, expiring state (+ a cookie holding its nonce)
 *   → GET /freee/callback?code&state → token exchange → company chosen → tokens stored (encrypted) → HTML page.
 * Any failure shows 「freee の認証に失敗しました」 and is audited with its error class.
 * Admins only: the signed link and state name the Slack user who started; /freee/connect and again
 * the callback (before the code is exchanged) ask whether that user is an admin of the workspace now. A member's
 * link, or an admin's link used after they stopped being one, gets the admin-only page; nothing is saved; audited.
 */

export interface FreeeOAuthDeps {
  connections: FreeeConnectionStore;
  tokenEndpoint: Pick<FreeeTokenEndpoint, "exchangeCode">;
  audit: Pick<AuditLog, "record">;
  /** Who is an admin of a workspace now (lib/ingress/actions/admins.ts): asked at the start and in the callback. */
  admins: { isAdmin(actor: { teamId: string; userId: string }): Promise<boolean> };
  logger: Logger;
  apiBaseUrl: string;
  oauthBaseUrl: string;
  clientId: string;
  stateSecret: string;
  /** Registered as the callback URL of the freee app, exactly. */
  redirectUri: string;
  /** Origin (+ optional path prefix) of the ingress, where /freee/connect is served. */
  publicBaseUrl: string;
  /** At most MAX_CONNECT_LINK_TTL_SECONDS (10 minutes), whatever is configured. */
  connectLinkTtlSeconds?: number;
  stateTtlSeconds?: number;
  /** Marks a connect link and an OAuth state used, so each works once. */
  uses: Pick<OneTimeUses, "consume">;
  fetch?: typeof fetch;
  clock?: () => Date;
  /** After a successful connect (e.g. republish App Home). Its failure is logged; the connection stands. */
  onConnected?: (teamId: string, userId: string) => Promise<void>;
  /**
   * After the connection is saved: the plans awaiting approval that were previewed against another company are
   * made unapprovable (lib/freee/plan-invalidation.ts). Its failure is logged; the MCP server still refuses them.
   */
  invalidatePlans?: (teamId: string, companyId: number, actor: string) => Promise<unknown>;
}

export type FreeeConnectionStatus = {
  status: "connected" | "reauth_required" | "not_connected";
  companyName?: string;
  companyId?: number;
  /** When the refresh token lapses; absent on a connection stored before the issue time was recorded. */
  refreshTokenExpiresAt?: string;
  /** Why a reconnect is needed (a FreeeAuthReason). */
  reauthReason?: string;
};

export interface FreeeOAuth {
  connect(request: Request): Promise<Response>;
  callback(request: Request): Promise<Response>;
  buildConnectUrl(teamId: string, userId: string, options?: { companyId?: number }): string;
  getConnectionStatus(teamId: string): Promise<FreeeConnectionStatus>;
}

const STATE_COOKIE = "freee_oauth_nonce";
/** `details.reason` of the AuthError for a connect by someone who is not an admin. */
const NOT_ADMIN = "not_admin";

const CompaniesSchema = z.object({
  companies: z.array(z.object({ id: z.int().check(z.positive()), display_name: z.nullish(z.string()), name: z.nullish(z.string()) })),
});

export function createFreeeOAuth(deps: FreeeOAuthDeps): FreeeOAuth {
  const clock = deps.clock ?? (() => new Date());
  const nowSeconds = () => Math.floor(clock().getTime() / 1000);
  const linkTtl = connectLinkTtl(deps.connectLinkTtlSeconds ?? MAX_CONNECT_LINK_TTL_SECONDS);
  const stateTtl = deps.stateTtlSeconds ?? 10 * 60;
  const doFetch = deps.fetch ?? fetch;
  const base = deps.publicBaseUrl.replace(/\/+$/, "");
  const cookieAttrs = `Path=/; HttpOnly; Secure; SameSite=Lax`;

  function buildConnectUrl(teamId: string, userId: string, options: { companyId?: number } = {}): string {
    return buildConnectLink({ publicBaseUrl: base, stateSecret: deps.stateSecret, ttlSeconds: linkTtl }, teamId, userId, nowSeconds(), options);
  }

  async function fail(err: unknown, where: "connect" | "callback", teamId: string | undefined, subject: string, status: number, actor = "freee-oauth"): Promise<Response> {
    const name = err instanceof Error ? err.name : "Error";
    const reason = err instanceof AuthError ? err.details.reason : undefined;
    const refused = reason === NOT_ADMIN;
    deps.logger.warn(`freee ${where} ${refused ? "refused" : "failed"}`, { error_type: name, reason, teamId, error_message: err instanceof Error ? redactString(err.message) : String(err) });
    if (teamId !== undefined) {
      try {
        await deps.audit.record({
          teamId,
          action: refused ? "freee.connect_refused" : "freee.connect_failed",
          subject,
          actor,
          layer: "admin",
          details: { step: where, errorType: name, ...(reason === undefined ? {} : { reason }), ...(err instanceof AuthError ? { errorDetails: err.details } : {}) },
        });
      } catch (auditErr) {
        deps.logger.error("audit write failed for a freee connect failure", { error: auditErr instanceof Error ? auditErr : String(auditErr) });
      }
    }
    const clear = { "set-cookie": `${STATE_COOKIE}=; ${cookieAttrs}; Max-Age=0` };
    return refused ? adminOnlyPage(clear) : failurePage(status, clear);
  }

  /** The user the signed link or state names must be an admin of its workspace now; else AuthError `not_admin`. */
  async function requireAdmin(claims: SignedClaims, where: "connect" | "callback"): Promise<void> {
    if (await deps.admins.isAdmin({ teamId: claims.t, userId: claims.u })) return;
    throw new AuthError(`freee ${where} by a user who is not an admin of the workspace`, { service: "freee", details: { reason: NOT_ADMIN, step: where } });
  }

  async function connect(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const team = url.searchParams.get("team");
    const user = url.searchParams.get("user");
    let claims: SignedClaims;
    try {
      claims = verifyState("freee_connect", requiredParam(url, "sig"), deps.stateSecret, clock());
      // The readable team/user parameters must be the signed ones.
      if (claims.t !== team || claims.u !== user) throw new AuthError("freee connect link parameters do not match its signature", { service: "freee", details: { reason: "mismatch" } });
    } catch (err) {
      // Unverified input: never audited under a workspace it may not belong to.
      return fail(err, "connect", undefined, "connect", 400);
    }
    try {
      await requireAdmin(claims, "connect");
    } catch (err) {
      // The link is ours (signed): its workspace and user are audited.
      const refused = err instanceof AuthError && err.details.reason === NOT_ADMIN;
      return fail(err, "connect", claims.t, `connect-link#${claims.u}#${claims.exp}`, refused ? 403 : 502, claims.u);
    }
    // Single-use: a link opened a second time (another browser, a forwarded URL, the same tab again) is refused.
    try {
      if (claims.n === undefined) throw new AuthError("freee connect link without a link id (issued before links were single-use)", { service: "freee", details: { reason: "link_unnamed" } });
      if (!(await deps.uses.consume(claims.t, "link", claims.n, claims.exp, clock()))) {
        throw new AuthError("freee connect link was already used", { service: "freee", details: { reason: "link_used" } });
      }
    } catch (err) {
      return fail(err, "connect", claims.t, `connect-link#${claims.u}#${claims.exp}`, err instanceof AuthError ? 400 : 502, claims.u);
    }
    // The browser that opened the link holds this nonce (cookie); only it can finish the flow at /freee/callback.
    const nonce = randomBytes(16).toString("base64url");
    const state = signState("freee_state", { t: claims.t, u: claims.u, exp: nowSeconds() + stateTtl, n: nonce, ...(claims.c === undefined ? {} : { c: claims.c }) }, deps.stateSecret);
    const authorize = new URL(`${deps.oauthBaseUrl}/public_api/authorize`);
    authorize.searchParams.set("response_type", "code");
    authorize.searchParams.set("client_id", deps.clientId);
    authorize.searchParams.set("redirect_uri", deps.redirectUri);
    authorize.searchParams.set("state", state);
    authorize.searchParams.set("prompt", "select_company");
    return new Response(null, {
      status: 302,
      headers: { location: authorize.toString(), "set-cookie": `${STATE_COOKIE}=${nonce}; ${cookieAttrs}; Max-Age=${stateTtl}`, "cache-control": "no-store" },
    });
  }

  async function callback(request: Request): Promise<Response> {
    const url = new URL(request.url);
    let claims: SignedClaims;
    try {
      claims = verifyState("freee_state", requiredParam(url, "state"), deps.stateSecret, clock());
      if (claims.n === undefined || readCookie(request.headers.get("cookie"), STATE_COOKIE) !== claims.n) {
        throw new AuthError("freee OAuth state is not bound to this browser", { service: "freee", details: { reason: "cookie_mismatch" } });
      }
    } catch (err) {
      return fail(err, "callback", undefined, "callback", 400);
    }
    const subject = `connect#${claims.n}`;
    const oauthError = url.searchParams.get("error");
    const code = url.searchParams.get("code");
    try {
      if (oauthError !== null) throw new AuthError("freee authorize page returned an error", { service: "freee", details: { reason: "authorize_error", oauthError: oauthError.slice(0, 64) } });
      if (code === null || code === "") throw new AuthError("freee callback without a code", { service: "freee", details: { reason: "missing_code" } });
      // Asked again now, before any token exists: the link may be a member's, or an admin's who is one no more.
      await requireAdmin(claims, "callback");
      // The state, too, works once: a replayed callback URL (with its cookie) is refused before the exchange.
      if (!(await deps.uses.consume(claims.t, "state", claims.n, claims.exp, clock()))) {
        throw new AuthError("freee OAuth state was already used", { service: "freee", details: { reason: "state_used" } });
      }
      const tokens = await deps.tokenEndpoint.exchangeCode(code, deps.redirectUri);
      const companies = await listCompanies(tokens.accessToken);
      const wanted = claims.c ?? tokens.companyId;
      const company = companies.find((c) => c.id === wanted) ?? companies[0];
      if (company === undefined) throw new AuthError("the freee user has no company to act on", { service: "freee", details: { reason: "no_company" } });
      if (claims.c !== undefined && company.id !== claims.c) {
        throw new AuthError("the requested company is not available to this freee user", { service: "freee", details: { reason: "company_unavailable", companyId: claims.c } });
      }
      const companyName = company.display_name ?? company.name ?? undefined;
      const saved = await deps.connections.save({
        teamId: claims.t,
        tokens,
        companyId: company.id,
        ...(companyName === undefined ? {} : { companyName }),
        connectedBy: claims.u,
      });
      await deps.audit.record({
        teamId: claims.t,
        action: "freee.connected",
        subject,
        actor: claims.u,
        layer: "admin",
        details: { companyId: company.id, companyName, version: saved.version, scope: tokens.scope },
      });
      if (deps.invalidatePlans !== undefined) {
        await deps.invalidatePlans(claims.t, company.id, claims.u).catch((err: unknown) => {
          deps.logger.error("plans awaiting approval were not invalidated after a reconnect", { teamId: claims.t, companyId: company.id, error: err instanceof Error ? err : String(err) });
        });
      }
      if (deps.onConnected !== undefined) {
        await deps.onConnected(claims.t, claims.u).catch((err: unknown) => {
          deps.logger.error("after-connect hook failed (App Home not refreshed)", { teamId: claims.t, error: err instanceof Error ? err : String(err) });
        });
      }
      return successPage(companyName, { "set-cookie": `${STATE_COOKIE}=; ${cookieAttrs}; Max-Age=0` });
    } catch (err) {
      const refused = err instanceof AuthError && err.details.reason === NOT_ADMIN;
      return fail(err, "callback", claims.t, subject, refused ? 403 : err instanceof AuthError ? 400 : 502, refused ? claims.u : undefined);
    }
  }

  async function listCompanies(accessToken: string) {
    let res: Response;
    try {
      res = await doFetch(`${deps.apiBaseUrl}/api/1/companies`, {
        headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" },
        signal: AbortSignal.timeout(10_000),
      });
    } catch (cause) {
      throw new ConnectionFailedError("freee companies request failed", { cause });
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw classifyHttpStatus(res.status, "freee companies", undefined, res.headers.get("retry-after"));
    }
    const parsed = CompaniesSchema.safeParse(await res.json());
    if (!parsed.success) throw new MalformedOutputError("freee companies response has an unexpected shape", { cause: parsed.error });
    return parsed.data.companies;
  }

  async function getConnectionStatus(teamId: string): Promise<FreeeConnectionStatus> {
    const meta = await deps.connections.getMeta(teamId);
    if (meta === undefined) return { status: "not_connected" };
    const expiresAt = refreshTokenExpiresAt(meta);
    return {
      status: meta.status === "active" ? "connected" : "reauth_required",
      companyId: meta.companyId,
      ...(meta.companyName === undefined ? {} : { companyName: meta.companyName }),
      ...(expiresAt === undefined ? {} : { refreshTokenExpiresAt: expiresAt }),
      ...(meta.reauthReason === undefined ? {} : { reauthReason: meta.reauthReason }),
    };
  }

  return { connect, callback, buildConnectUrl, getConnectionStatus };
}

function requiredParam(url: URL, name: string): string {
  const value = url.searchParams.get(name);
  if (value === null || value === "") throw new AuthError(`freee OAuth request without ${name}`, { service: "freee", details: { reason: "missing" } });
  return value;
}

function readCookie(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}

/**
 * Settings of the connect flow: FREEE_STATE_SECRET (or _SECRET_ARN), FREEE_CLIENT_ID, and where the ingress
 * lives — PUBLIC_BASE_URL (the web Function URL, `WebUrl`) and/or FREEE_REDIRECT_URI (default
 * `<PUBLIC_BASE_URL>/freee/callback`; must equal the callback URL registered in the freee app).
 */
export async function loadOAuthSettings(env: Env = process.env) {
  const publicBase = optionalEnv("PUBLIC_BASE_URL", env)?.replace(/\/+$/, "");
  const redirect = optionalEnv("FREEE_REDIRECT_URI", env);
  if (publicBase === undefined && redirect === undefined) {
    throw new FatalConfigError("missing setting PUBLIC_BASE_URL (or FREEE_REDIRECT_URI)", { details: { setting: "PUBLIC_BASE_URL" } });
  }
  const redirectUri = redirect ?? `${publicBase}/freee/callback`;
  return {
    stateSecret: await resolveSecret("FREEE_STATE_SECRET", env),
    redirectUri,
    publicBaseUrl: publicBase ?? new URL(redirectUri).origin,
    connectLinkTtlSeconds: connectLinkTtl(intEnv("FREEE_CONNECT_LINK_TTL_SECONDS", MAX_CONNECT_LINK_TTL_SECONDS, env)),
    stateTtlSeconds: intEnv("FREEE_STATE_TTL_SECONDS", 10 * 60, env),
  };
}
