import { optionalEnv, type Env } from "../lib/core/config/env";

/**
 * Where the web admin is, for the links to it from Slack (App Home, the freee connection failure on a card):
 * WEB_ADMIN_URL, or `<the web Lambda's URL>/admin` (FREEE_CONNECT_BASE_URL or PUBLIC_BASE_URL). Undefined: no link.
 */
export function webAdminUrlFromEnv(env: Env): string | undefined {
  const explicit = optionalEnv("WEB_ADMIN_URL", env);
  if (explicit !== undefined) return explicit.replace(/\/+$/, "");
  const base = optionalEnv("FREEE_CONNECT_BASE_URL", env) ?? optionalEnv("PUBLIC_BASE_URL", env);
  return base === undefined ? undefined : `${base.replace(/\/+$/, "")}/admin`;
}
