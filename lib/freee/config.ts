import { optionalEnv, requireEnv, type Env } from "../core/config/env";
import { resolveSecret } from "../core/config/secrets";

/** freee endpoints and app credentials. Every endpoint is configurable so tests point at a fake server. */
export interface FreeeEndpoints {
  apiBaseUrl: string;
  oauthBaseUrl: string;
}

export interface FreeeAppCredentials {
  clientId: string;
  clientSecret: string;
}

export function loadFreeeEndpoints(env: Env = process.env): FreeeEndpoints {
  return {
    apiBaseUrl: trimSlash(optionalEnv("FREEE_API_BASE_URL", env) ?? "https://api.freee.co.jp"),
    oauthBaseUrl: trimSlash(optionalEnv("FREEE_OAUTH_BASE_URL", env) ?? "https://accounts.secure.freee.co.jp"),
  };
}

export async function loadFreeeAppCredentials(env: Env = process.env): Promise<FreeeAppCredentials> {
  // Both from Secrets Manager on AWS (the stack hands FREEE_CLIENT_ID_SECRET_ARN), from the environment locally.
  return { clientId: await resolveSecret("FREEE_CLIENT_ID", env), clientSecret: await resolveSecret("FREEE_CLIENT_SECRET", env) };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}
