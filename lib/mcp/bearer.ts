import { createHmac, timingSafeEqual } from "node:crypto";
import { resolveSecret } from "../core/config/secrets";
import type { Env } from "../core/config/env";
import { AuthError, FatalConfigError } from "../core/errors/taxonomy";
import { registerSecret } from "../core/redaction/secret-registry";

/**
 * The bearer the Managed Agents session sends to the freee MCP server (vault credential `static_bearer`).
 * It names the workspace AND the execution, so the MCP server can load that execution's approved tool list
 * and refuse anything else. Format: `mcp1.<base64url(JSON payload)>.<base64url(HMAC-SHA256)>`; the HMAC
 * covers `mcp1.<payload>` with the secret `MCP_BEARER_SECRET`. Short-lived (`exp`): a leaked token dies
 * with its run.
 */

const VERSION = "mcp1";
const MIN_SECRET_LENGTH = 32;

export interface McpBearerClaims {
  teamId: string;
  executionId: string;
  /** Unix seconds. */
  expiresAt: number;
}

export type McpBearerRejection = "malformed" | "bad_signature" | "expired" | "wrong_execution";

export interface IssueMcpBearerInput {
  teamId: string;
  executionId: string;
  ttlSeconds: number;
  now?: Date;
}

export function issueMcpBearer(input: IssueMcpBearerInput, secret: string): string {
  assertSecret(secret);
  if (input.teamId === "" || input.executionId === "") {
    throw new FatalConfigError("MCP bearer needs a teamId and an executionId");
  }
  if (!Number.isInteger(input.ttlSeconds) || input.ttlSeconds <= 0) {
    throw new FatalConfigError(`MCP bearer ttl must be a positive integer, got ${input.ttlSeconds}`);
  }
  const nowSeconds = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const payload = base64url(
    JSON.stringify({ t: input.teamId, e: input.executionId, exp: nowSeconds + input.ttlSeconds }),
  );
  const bearer = `${VERSION}.${payload}.${sign(payload, secret)}`;
  registerSecret(bearer);
  return bearer;
}

export interface VerifyMcpBearerOptions {
  now?: Date;
  /** When the caller already knows the execution (e.g. from a path), the token must name the same one. */
  expectedExecutionId?: string;
}

/**
 * Checks signature, expiry and (optionally) the execution. Returns the claims, or throws AuthError with
 * `details.reason` (a McpBearerRejection). The token itself never appears in the error.
 */
export function verifyMcpBearer(token: string, secret: string, options: VerifyMcpBearerOptions = {}): McpBearerClaims {
  assertSecret(secret);
  registerSecret(token);
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== VERSION || parts[1] === "" || parts[2] === "") {
    throw reject("malformed");
  }
  const [, payload, signature] = parts as [string, string, string];
  const expected = Buffer.from(sign(payload, secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw reject("bad_signature");

  let claims: McpBearerClaims;
  try {
    const raw = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    if (typeof raw.t !== "string" || typeof raw.e !== "string" || typeof raw.exp !== "number") {
      throw new TypeError("claims t/e/exp missing or mistyped");
    }
    claims = { teamId: raw.t, executionId: raw.e, expiresAt: raw.exp };
  } catch (cause) {
    // Signed by us yet unreadable: still a refusal, never a crash of the MCP server.
    throw reject("malformed", cause);
  }
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (claims.expiresAt <= nowSeconds) throw reject("expired");
  if (options.expectedExecutionId !== undefined && options.expectedExecutionId !== claims.executionId) {
    throw reject("wrong_execution");
  }
  return claims;
}

/** `Authorization: Bearer <token>` → token, or undefined when the header is absent or another scheme. */
export function bearerFromAuthorizationHeader(header: string | undefined | null): string | undefined {
  if (header === undefined || header === null) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  registerSecret(match?.[1]);
  return match?.[1];
}

/** The HMAC secret from `MCP_BEARER_SECRET` (env) or `MCP_BEARER_SECRET_SECRET_ARN` (Secrets Manager). */
export async function loadMcpBearerSecret(env: Env = process.env): Promise<string> {
  const secret = await resolveSecret("MCP_BEARER_SECRET", env);
  assertSecret(secret);
  return secret;
}

function sign(payload: string, secret: string): string {
  return createHmac("sha256", secret).update(`${VERSION}.${payload}`).digest("base64url");
}

function base64url(text: string): string {
  return Buffer.from(text, "utf8").toString("base64url");
}

function assertSecret(secret: string): void {
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new FatalConfigError(`MCP_BEARER_SECRET must be at least ${MIN_SECRET_LENGTH} characters`, {
      details: { setting: "MCP_BEARER_SECRET" },
    });
  }
}

function reject(reason: McpBearerRejection, cause?: unknown): AuthError {
  return new AuthError(`MCP bearer rejected: ${reason}`, { service: "freee", cause, details: { reason } });
}

/**
 * The Execution item an MCP bearer points at: executionId is `<taskId>-e<no>` (executionIdFor), so the MCP
 * server can read `Keys.execution(taskId, executionNo)` and its approved tool list. Malformed → AuthError.
 */
export function executionRefOf(claims: Pick<McpBearerClaims, "executionId">): { taskId: string; executionNo: number } {
  const match = /^(.+)-e([1-9]\d*)$/.exec(claims.executionId);
  if (match === null) throw reject("malformed");
  return { taskId: match[1] as string, executionNo: Number(match[2]) };
}
