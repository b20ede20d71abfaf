import { freeeOAuthFromEnv } from "../../lib/freee/oauth";
import type { FreeePort } from "../../lib/slack/freee-port";

/** The freee routes (/freee/connect, /freee/callback) and App Home's connection status, from lib/freee. */
export const freeePort: FreeePort = freeeOAuthFromEnv;
