import { createPublicKey, verify, type JsonWebKey } from "node:crypto";
import { AuthError, UpstreamServerError, type AppErrorOptions } from "../core/errors/taxonomy";

/**
 * Sign in with Slack (OpenID Connect, https://docs.slack.dev/authentication/sign-in-with-slack): the browser goes
 * to Slack's authorize page with `openid profile` and our state and nonce, comes back with a code, which is
 * exchanged (openid.connect.token) for an id token. The id token is verified here, not trusted: RS256 signature
 * by a key of Slack's JWKS, issuer, audience (our client id), expiry, and the nonce this sign-in sent.
 */
export interface OpenIdSettings {
  clientId: string;
  clientSecret: string;
  /** Where Slack sends the browser back: `<web url>/login/callback`. */
  redirectUri: string;
  authorizeUrl: string;
  tokenUrl: string;
  jwksUrl: string;
  issuer: string;
}

export const SLACK_OPENID_DEFAULTS = {
  authorizeUrl: "https://slack.com/openid/connect/authorize",
  tokenUrl: "https://slack.com/api/openid.connect.token",
  jwksUrl: "https://slack.com/openid/connect/keys",
  issuer: "https://slack.com",
} as const;

export const OPENID_SCOPES = "openid profile";

/** What a verified id token says about who signed in. */
export interface SlackIdentity {
  teamId: string;
  userId: string;
  name: string;
}

/** A sign-in that cannot be accepted: the browser is sent back to /login with the catalogue text. */
export class SignInRefusedError extends AuthError {
  override readonly name = "SignInRefusedError";
  constructor(message: string, options: AppErrorOptions = {}) {
    super(message, { ...options, service: "slack" });
  }
}

type Fetch = typeof fetch;

export class SlackOpenId {
  private keys: Promise<JsonWebKey[]> | undefined;

  constructor(
    private readonly settings: OpenIdSettings,
    private readonly fetchImpl: Fetch = fetch,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  authorizeUrl(state: string, nonce: string): string {
    const url = new URL(this.settings.authorizeUrl);
    url.search = new URLSearchParams({ response_type: "code", scope: OPENID_SCOPES, client_id: this.settings.clientId, state, nonce, redirect_uri: this.settings.redirectUri }).toString();
    return url.toString();
  }

  /** The code exchanged and its id token verified against this sign-in's nonce. */
  async signIn(code: string, nonce: string): Promise<SlackIdentity> {
    const response = await this.fetchImpl(this.settings.tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: this.settings.clientId, client_secret: this.settings.clientSecret, code, redirect_uri: this.settings.redirectUri, grant_type: "authorization_code" }).toString(),
      signal: AbortSignal.timeout(10_000),
    });
    if (response.status >= 500) throw new UpstreamServerError(`openid.connect.token answered HTTP ${response.status}`, { details: { status: response.status } });
    const body = (await response.json()) as { ok?: boolean; error?: string; id_token?: unknown };
    if (body.ok !== true || typeof body.id_token !== "string") throw new SignInRefusedError("openid.connect.token refused the code", { details: { error: body.error ?? "no id_token" } });
    return this.verifyIdToken(body.id_token, nonce);
  }

  async verifyIdToken(token: string, nonce: string): Promise<SlackIdentity> {
    const parts = token.split(".");
    if (parts.length !== 3) throw new SignInRefusedError("id token is not a JWS");
    const [head, payload, signature] = parts as [string, string, string];
    const header = decodeJson(head);
    if (header.alg !== "RS256") throw new SignInRefusedError("id token is not signed with RS256", { details: { alg: String(header.alg) } });
    const key = await this.key(typeof header.kid === "string" ? header.kid : undefined);
    const valid = verify("RSA-SHA256", Buffer.from(`${head}.${payload}`), createPublicKey({ key, format: "jwk" }), Buffer.from(signature, "base64url"));
    if (!valid) throw new SignInRefusedError("id token signature does not verify");
    const claims = decodeJson(payload);
    const now = this.now();
    if (claims.iss !== this.settings.issuer) throw new SignInRefusedError("id token issuer is not Slack", { details: { iss: String(claims.iss) } });
    const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audience.includes(this.settings.clientId)) throw new SignInRefusedError("id token is for another client");
    if (typeof claims.exp !== "number" || claims.exp <= now - 60) throw new SignInRefusedError("id token expired");
    if (typeof claims.iat === "number" && claims.iat > now + 60) throw new SignInRefusedError("id token issued in the future");
    if (claims.nonce !== nonce) throw new SignInRefusedError("id token nonce is not this sign-in's");
    const teamId = claims["https://slack.com/team_id"];
    const userId = claims["https://slack.com/user_id"] ?? claims.sub;
    if (typeof teamId !== "string" || typeof userId !== "string") throw new SignInRefusedError("id token names no team or user");
    return { teamId, userId, name: typeof claims.name === "string" && claims.name !== "" ? claims.name : userId };
  }

  /** Slack's signing key by id; the key set is fetched once per warm instance and again for an unknown kid. */
  private async key(kid: string | undefined): Promise<JsonWebKey> {
    const find = (keys: JsonWebKey[]) => keys.find((k) => (kid === undefined || k.kid === kid) && k.kty === "RSA");
    const cached = this.keys === undefined ? undefined : find(await this.keys);
    if (cached !== undefined) return cached;
    this.keys = this.fetchKeys();
    const fresh = find(await this.keys.catch((err: unknown) => {
      this.keys = undefined;
      throw err;
    }));
    if (fresh === undefined) throw new SignInRefusedError("id token key is not in Slack's key set", { details: { kid: kid ?? "none" } });
    return fresh;
  }

  private async fetchKeys(): Promise<JsonWebKey[]> {
    const response = await this.fetchImpl(this.settings.jwksUrl, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new UpstreamServerError(`Slack's JWKS answered HTTP ${response.status}`, { details: { status: response.status } });
    const body = (await response.json()) as { keys?: unknown };
    return Array.isArray(body.keys) ? (body.keys as JsonWebKey[]) : [];
  }
}

function decodeJson(part: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch (cause) {
    throw new SignInRefusedError("id token part is not JSON", { cause });
  }
  if (typeof parsed !== "object" || parsed === null) throw new SignInRefusedError("id token part is not an object");
  return parsed as Record<string, unknown>;
}
