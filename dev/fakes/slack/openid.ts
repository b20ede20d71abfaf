import { createSign, generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";
import { json } from "../http";
import type { Workspace } from "./workspace";

/**
 * Sign in with Slack as Slack serves it (https://docs.slack.dev/authentication/sign-in-with-slack):
 * `GET <base>/openid/connect/authorize` (response_type=code, scope with openid, client_id, redirect_uri, state,
 * nonce), `POST <api>openid.connect.token` (client credentials, the code once, the same redirect_uri → an RS256 id
 * token), `GET <base>/openid/connect/keys` (the JWKS). Where Slack shows its consent page, the fake shows the
 * workspace's members to pick from; `&user=<id>` picks one at once (the tests, the browser test clicks a link).
 * `failNextAuthorize` makes the next sign-in come back with Slack's `error=` as a refused consent does.
 */
export const FAKE_OPENID_ISSUER = "https://slack.com";

export interface OpenIdClient {
  id: string;
  secret: string;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  nonce: string | undefined;
  userId: string;
  teamId: string;
}

export class FakeSlackOpenId {
  readonly kid = `fake-${randomBytes(4).toString("hex")}`;
  /** Display names the id token carries (`name`); default the member id. */
  readonly names = new Map<string, string>();
  private keys: { privateKey: KeyObject; publicJwk: Record<string, unknown> } | undefined;
  private readonly codes = new Map<string, IssuedCode>();
  private nextError: string | undefined;
  private forged: ((claims: Record<string, unknown>) => string) | undefined;

  constructor(
    private readonly workspace: Workspace,
    private readonly client: OpenIdClient,
    private readonly clock: () => number,
    private readonly options: { issuer?: string } = {},
  ) {}

  /** Made on first use: most fakes of the suite never sign anyone in. */
  private key(): { privateKey: KeyObject; publicJwk: Record<string, unknown> } {
    if (this.keys === undefined) {
      const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      this.keys = { privateKey, publicJwk: { ...publicKey.export({ format: "jwk" }), kid: this.kid, alg: "RS256", use: "sig" } };
    }
    return this.keys;
  }

  /** The next token exchange answers `make(claims)` instead of the token the fake would sign (forged, altered). */
  forgeNext(make: (claims: Record<string, unknown>) => string): void {
    this.forged = make;
  }

  failNextAuthorize(error = "access_denied"): void {
    this.nextError = error;
  }

  /** `path`: what follows `openid/connect/` (authorize, keys). */
  page(url: URL, path: string): Response {
    if (path === "keys") return json(200, { keys: [this.key().publicJwk] });
    if (path !== "authorize") return json(404, { ok: false, error: "unknown_method" });
    const q = url.searchParams;
    const redirectUri = q.get("redirect_uri");
    if (q.get("client_id") !== this.client.id) return text(400, "invalid_client_id");
    if (q.get("response_type") !== "code") return text(400, "unsupported_response_type");
    if (!(q.get("scope") ?? "").split(/[ ,]+/).includes("openid")) return text(400, "invalid_scope");
    if (redirectUri === null || !/^https?:\/\//.test(redirectUri)) return text(400, "bad_redirect_uri");
    const back = new URL(redirectUri);
    const state = q.get("state");
    if (state !== null) back.searchParams.set("state", state);
    if (this.nextError !== undefined) {
      back.searchParams.set("error", this.nextError);
      this.nextError = undefined;
      return redirect(back.toString());
    }
    const userId = q.get("user");
    const user = userId === null ? undefined : this.workspace.users.get(userId);
    if (user === undefined || user.deleted) return this.chooser(url);
    const code = `oidc.${randomBytes(12).toString("hex")}`;
    this.codes.set(code, { clientId: this.client.id, redirectUri, nonce: q.get("nonce") ?? undefined, userId: user.id, teamId: user.teamId });
    back.searchParams.set("code", code);
    return redirect(back.toString());
  }

  /** openid.connect.token: the code exchanged once, by our client, for the redirect_uri it was issued to. */
  token(body: Record<string, unknown>, auth: string | null): Record<string, unknown> {
    const basic = auth?.startsWith("Basic ") ? Buffer.from(auth.slice(6), "base64").toString("utf8").split(":") : [];
    const id = (body.client_id as string | undefined) ?? basic[0];
    const secret = (body.client_secret as string | undefined) ?? basic[1];
    if (id !== this.client.id || secret !== this.client.secret) return { ok: false, error: "invalid_client_id" };
    const code = typeof body.code === "string" ? body.code : undefined;
    const issued = code === undefined ? undefined : this.codes.get(code);
    if (code === undefined || issued === undefined) return { ok: false, error: "invalid_code" };
    this.codes.delete(code);
    if (body.redirect_uri !== issued.redirectUri) return { ok: false, error: "bad_redirect_uri" };
    const now = Math.floor(this.clock() / 1000);
    const claims = {
      iss: this.options.issuer ?? FAKE_OPENID_ISSUER,
      sub: issued.userId,
      aud: issued.clientId,
      exp: now + 300,
      iat: now,
      auth_time: now,
      ...(issued.nonce === undefined ? {} : { nonce: issued.nonce }),
      "https://slack.com/user_id": issued.userId,
      "https://slack.com/team_id": issued.teamId,
      name: this.names.get(issued.userId) ?? issued.userId,
    };
    const forge = this.forged;
    this.forged = undefined;
    return { ok: true, access_token: `xoxp-${randomBytes(8).toString("hex")}`, token_type: "Bearer", id_token: forge === undefined ? this.sign(claims) : forge(claims) };
  }

  /** A token signed with the fake's key, whatever it claims (a test forging one signs with another key). */
  sign(claims: Record<string, unknown>, key: KeyObject = this.key().privateKey): string {
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    const head = `${enc({ alg: "RS256", typ: "JWT", kid: this.kid })}.${enc(claims)}`;
    return `${head}.${createSign("RSA-SHA256").update(head).sign(key).toString("base64url")}`;
  }

  private chooser(url: URL): Response {
    const links = [...this.workspace.users.values()]
      .filter((u) => !u.deleted)
      .map((u) => {
        const pick = new URL(url);
        pick.searchParams.set("user", u.id);
        return `<li><a href="${escape(pick.pathname + pick.search)}">${escape(this.names.get(u.id) ?? u.id)}（${escape(u.id)}）</a></li>`;
      });
    return new Response(`<!doctype html><html lang="ja"><meta charset="utf-8"><title>Slack（サンドボックス）でサインイン</title><h1>サインインするユーザー</h1><ul>${links.join("")}</ul></html>`, {
      status: 200,
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  }
}

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { location } });
}

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}

function escape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
