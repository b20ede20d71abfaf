import * as z from "../core/zod";
import { classifyFetchFailure, classifyHttpStatus } from "../core/errors/classify";
import { AuthError, FatalConfigError, MalformedOutputError } from "../core/errors/taxonomy";
import { registerSecret } from "../core/redaction/secret-registry";
import type { FreeeAppCredentials } from "./config";
import type { FreeeAuthReason } from "./freee-response";
import type { FreeeTokens } from "../store/freee-connections";

/**
 * freee's OAuth token endpoint (`POST /public_api/token`, form-encoded): authorization_code and
 * refresh_token grants. Never retried here: a refresh token is single-use, and whether a failed call spent
 * it is unknowable, so the caller decides (and a human reconnects if it was spent).
 */

const TokenResponseSchema = z.object({
  access_token: z.string().check(z.minLength(1)),
  refresh_token: z.string().check(z.minLength(1)),
  expires_in: z.int().check(z.positive()),
  scope: z.optional(z.string()),
  company_id: z.nullish(z.union([z.string(), z.number()])),
});

export interface TokenGrantResult extends FreeeTokens {
  /** The company the user selected on the authorize page (`prompt=select_company`), when freee says. */
  companyId?: number;
}

/** One token request, at most (no retries: a refresh token is single-use). */
export const TOKEN_ENDPOINT_TIMEOUT_MS = 10_000;

export class FreeeTokenEndpoint {
  constructor(
    private readonly oauthBaseUrl: string,
    private readonly credentials: FreeeAppCredentials,
    private readonly options: { fetch?: typeof fetch; clock?: () => Date; timeoutMs?: number } = {},
  ) {}

  exchangeCode(code: string, redirectUri: string): Promise<TokenGrantResult> {
    return this.grant({ grant_type: "authorization_code", code, redirect_uri: redirectUri });
  }

  refresh(refreshToken: string): Promise<TokenGrantResult> {
    registerSecret(refreshToken);
    return this.grant({ grant_type: "refresh_token", refresh_token: refreshToken });
  }

  private async grant(params: { grant_type: string } & Record<string, string>): Promise<TokenGrantResult> {
    const doFetch = this.options.fetch ?? fetch;
    const body = new URLSearchParams({ ...params, client_id: this.credentials.clientId, client_secret: this.credentials.clientSecret });
    let res: Response;
    try {
      res = await doFetch(`${this.oauthBaseUrl}/public_api/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? TOKEN_ENDPOINT_TIMEOUT_MS),
      });
    } catch (cause) {
      throw classifyFetchFailure(cause, "freee token endpoint");
    }
    const text = await res.text();
    if (!res.ok) throw refusal(res, text, params.grant_type);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (cause) {
      throw new MalformedOutputError("freee token endpoint returned non-JSON", { cause });
    }
    const parsed = TokenResponseSchema.safeParse(json);
    if (!parsed.success) {
      throw new MalformedOutputError("freee token response lacks expected fields", {
        cause: parsed.error,
        details: { issues: parsed.error.issues.map((i) => i.path.join(".")) },
      });
    }
    registerSecret(parsed.data.access_token);
    registerSecret(parsed.data.refresh_token);
    const now = (this.options.clock ?? (() => new Date()))().getTime();
    const companyId = parsed.data.company_id == null ? undefined : Number(parsed.data.company_id);
    return {
      accessToken: parsed.data.access_token,
      refreshToken: parsed.data.refresh_token,
      accessTokenExpiresAt: new Date(now + parsed.data.expires_in * 1000).toISOString(),
      refreshTokenIssuedAt: new Date(now).toISOString(),
      ...(parsed.data.scope === undefined ? {} : { scope: parsed.data.scope }),
      ...(companyId !== undefined && Number.isInteger(companyId) && companyId > 0 ? { companyId } : {}),
    };
  }
}

/**
 * The OAuth errors (RFC 6749 §5.2) that say the app itself is misconfigured — its client id / secret, or a
 * grant type freee does not allow it. The operator fixes these; the workspace's refresh token was not the
 * problem (freee did not even look at it), so the workspace is not sent to reconnect.
 */
const APP_CONFIG_ERRORS: ReadonlySet<string> = new Set(["invalid_client", "unauthorized_client", "unsupported_grant_type", "invalid_request", "invalid_scope"]);

/**
 * A refused grant as a taxonomy error. `invalid_grant` (the code or refresh token is spent, revoked, past its
 * 90 days, or for another client) is the reconnect case: `AuthError` with reason `refresh_rejected`.
 * App-configuration errors are `FatalConfigError`. A 400/401 without a code is an `AuthError` with reason
 * `unrecognized`, which the caller does not treat as a spent token.
 */
function refusal(res: Response, text: string, grantType: string): Error {
  const oauthError = readOAuthError(text);
  const details = { status: res.status, oauthError, grantType };
  if (oauthError !== undefined && APP_CONFIG_ERRORS.has(oauthError)) {
    return new FatalConfigError(`freee token endpoint refused the app's credentials or request (${oauthError}): check FREEE_CLIENT_ID / FREEE_CLIENT_SECRET`, {
      details: { ...details, setting: "FREEE_CLIENT_SECRET" },
    });
  }
  if (res.status === 400 || res.status === 401) {
    const reason: FreeeAuthReason = oauthError !== "invalid_grant" ? "unrecognized" : grantType === "refresh_token" ? "refresh_rejected" : "code_rejected";
    return new AuthError(`freee token endpoint refused the ${grantType} grant (${res.status}${oauthError === undefined ? "" : `, ${oauthError}`})`, {
      service: "freee",
      details: { ...details, reason },
    });
  }
  return classifyHttpStatus(res.status, "freee token endpoint", undefined, res.headers.get("retry-after"));
}

/** The OAuth `error` code only (never the description, which could echo input). */
function readOAuthError(text: string): string | undefined {
  try {
    const json = JSON.parse(text) as { error?: unknown };
    return typeof json.error === "string" ? json.error.slice(0, 64) : undefined;
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}
