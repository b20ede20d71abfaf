import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { FatalConfigError } from "../core/errors/taxonomy";

/**
 * The signed values the web admin keeps in cookies: the session (who signed in, to which workspace, until when)
 * and the sign-in's state and nonce while the browser is at Slack. HMAC-SHA256 over the JSON, one key per purpose
 * derived from WEB_SESSION_SECRET, so a sign-in cookie can never be replayed as a session. Nothing secret is in them.
 */
export const SESSION_COOKIE = "__Host-admin_session";
export const SIGN_IN_COOKIE = "__Host-admin_signin";
/** How long a session lasts from sign-in; then Slack is asked again. */
export const SESSION_TTL_SECONDS = 8 * 3600;
/** How long the browser may take at Slack's consent page. */
export const SIGN_IN_TTL_SECONDS = 10 * 60;

export const MIN_SECRET_LENGTH = 32;

export interface Session {
  teamId: string;
  userId: string;
  /** The member's name as Slack's id token gave it (shown in the header). */
  name: string;
  /** Random per sign-in: the CSRF token derives from it. */
  sid: string;
  /** Unix seconds. */
  exp: number;
}

export interface PendingSignIn {
  state: string;
  nonce: string;
  /** Where to go back to after sign-in (a path under /admin). */
  next: string;
  exp: number;
}

export class CookieSigner {
  private readonly sessionKey: Buffer;
  private readonly signInKey: Buffer;
  private readonly csrfKey: Buffer;

  constructor(secret: string, private readonly now: () => number = () => Math.floor(Date.now() / 1000)) {
    if (secret.length < MIN_SECRET_LENGTH) throw new FatalConfigError(`the web admin's session secret must be at least ${MIN_SECRET_LENGTH} characters`, { details: { setting: "WEB_SESSION_SECRET" } });
    const derive = (purpose: string) => createHmac("sha256", secret).update(purpose).digest();
    this.sessionKey = derive("web-admin session");
    this.signInKey = derive("web-admin sign-in");
    this.csrfKey = derive("web-admin csrf");
  }

  newSession(who: Omit<Session, "sid" | "exp">): Session {
    return { ...who, sid: randomBytes(16).toString("base64url"), exp: this.now() + SESSION_TTL_SECONDS };
  }

  sealSession(session: Session): string {
    return seal(this.sessionKey, session);
  }

  /** The session of a cookie value, or undefined when it is missing, forged, malformed or expired. */
  openSession(value: string | undefined): Session | undefined {
    const data = open(this.sessionKey, value);
    if (data === undefined) return undefined;
    const { teamId, userId, name, sid, exp } = data as Partial<Session>;
    if (typeof teamId !== "string" || typeof userId !== "string" || typeof name !== "string" || typeof sid !== "string" || typeof exp !== "number") return undefined;
    return exp > this.now() ? { teamId, userId, name, sid, exp } : undefined;
  }

  newSignIn(next: string): PendingSignIn {
    return { state: randomBytes(24).toString("base64url"), nonce: randomBytes(24).toString("base64url"), next, exp: this.now() + SIGN_IN_TTL_SECONDS };
  }

  sealSignIn(pending: PendingSignIn): string {
    return seal(this.signInKey, pending);
  }

  openSignIn(value: string | undefined): PendingSignIn | undefined {
    const data = open(this.signInKey, value);
    if (data === undefined) return undefined;
    const { state, nonce, next, exp } = data as Partial<PendingSignIn>;
    if (typeof state !== "string" || typeof nonce !== "string" || typeof next !== "string" || typeof exp !== "number") return undefined;
    return exp > this.now() ? { state, nonce, next, exp } : undefined;
  }

  /** The CSRF token of a session: every POST form carries it; a token of another session does not match. */
  csrfToken(session: Session): string {
    return createHmac("sha256", this.csrfKey).update(session.sid).digest("base64url");
  }

  checkCsrf(session: Session, token: unknown): boolean {
    return typeof token === "string" && sameText(token, this.csrfToken(session));
  }
}

/** `Set-Cookie` for a signed value: HttpOnly, Secure, SameSite=Lax (the return from Slack is a top-level GET). */
export function cookie(name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Lax`;
}

export function clearCookie(name: string): string {
  return `${name}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`;
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function seal(key: Buffer, data: object): string {
  const body = Buffer.from(JSON.stringify(data)).toString("base64url");
  return `${body}.${createHmac("sha256", key).update(body).digest("base64url")}`;
}

function open(key: Buffer, value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  const dot = value.indexOf(".");
  if (dot <= 0) return undefined;
  const body = value.slice(0, dot);
  if (!sameText(value.slice(dot + 1), createHmac("sha256", key).update(body).digest("base64url"))) return undefined;
  // Only what we signed gets here, and we sign JSON objects.
  const parsed: unknown = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
}
