import { z } from "zod";
import { classifyHttpStatus } from "../errors/classify";
import { AuthError, ConnectionFailedError, MalformedOutputError, UpstreamTimeoutError } from "../errors/taxonomy";
import type { FreeeAppCredentials } from "./config";
import type { FreeeTokens } from "./connection-store";

/**
 * freee's OAuth token endpoint (`POST /public_api/token`, form-encoded): authorization_code and
 * refresh_token grants. Never retried here: a refresh token is single-use, and whether a failed call spent
 * it is unknowable, so the caller decides (and a human reconnects if it was spent).
 */

const TokenResponseSchema = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1),
  expires_in: z.number().int().positive(),
  scope: z.string().optional(),
  company_id: z.union([z.string(), z.number()]).nullish(),
});

export interface TokenGrantResult extends FreeeTokens {
  /** The company the user selected on the authorize page (`prompt=select_company`), when freee says. */
  companyId?: number;
}

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
    return this.grant({ grant_type: "refresh_token", refresh_token: refreshToken });
  }

  private async grant(params: Record<string, string>): Promise<TokenGrantResult> {
    const doFetch = this.options.fetch ?? fetch;
    const body = new URLSearchParams({ ...params, client_id: this.credentials.clientId, client_secret: this.credentials.clientSecret });
    let res: Response;
    try {
      res = await doFetch(`${this.oauthBaseUrl}/public_api/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (cause) {
      if (cause instanceof Error && cause.name === "TimeoutError") {
        throw new UpstreamTimeoutError("freee token endpoint timed out", { cause });
      }
      throw new ConnectionFailedError("freee token endpoint unreachable", { cause });
    }
    const text = await res.text();
    if (!res.ok) {
      const oauthError = readOAuthError(text);
      // invalid_grant / invalid_client come as 400 or 401: the grant itself is refused, not a transient fault.
      if (res.status === 400 || res.status === 401) {
        throw new AuthError(`freee token endpoint refused the ${params.grant_type} grant (${res.status})`, {
          details: { status: res.status, oauthError, grantType: params.grant_type },
        });
      }
      throw classifyHttpStatus(res.status, "freee token endpoint", undefined, res.headers.get("retry-after"));
    }
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
    const now = (this.options.clock ?? (() => new Date()))().getTime();
    const companyId = parsed.data.company_id == null ? undefined : Number(parsed.data.company_id);
    return {
      accessToken: parsed.data.access_token,
      refreshToken: parsed.data.refresh_token,
      accessTokenExpiresAt: new Date(now + parsed.data.expires_in * 1000).toISOString(),
      ...(parsed.data.scope === undefined ? {} : { scope: parsed.data.scope }),
      ...(companyId !== undefined && Number.isInteger(companyId) && companyId > 0 ? { companyId } : {}),
    };
  }
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
