import { intEnv, listEnv, type Env } from "./env";

/** Limits and constants (docs/architecture.md, limits), configurable by environment (the CDK stack sets them from context). */
export interface Limits {
  pollIntervalSeconds: number;
  runTimeoutSeconds: number;
  maxRegenerations: number;
  maxReruns: number;
  approvalTimeoutSeconds: number;
  /** A change at or above this percent of the current amount is warned about on the Process card. */
  warnChangePercent: number;
  /** A change (or a created amount) at or above this many yen is warned about on the Process card. */
  warnChangeYen: number;
}

export const DEFAULT_LIMITS: Limits = {
  pollIntervalSeconds: 3,
  runTimeoutSeconds: 360,
  maxRegenerations: 5,
  maxReruns: 3,
  approvalTimeoutSeconds: 7 * 24 * 60 * 60,
  warnChangePercent: 20,
  warnChangeYen: 1_000_000,
};

export function loadLimits(env: Env = process.env): Limits {
  return {
    pollIntervalSeconds: intEnv("POLL_INTERVAL_SECONDS", DEFAULT_LIMITS.pollIntervalSeconds, env),
    runTimeoutSeconds: intEnv("RUN_TIMEOUT_SECONDS", DEFAULT_LIMITS.runTimeoutSeconds, env),
    maxRegenerations: intEnv("MAX_REGENERATIONS", DEFAULT_LIMITS.maxRegenerations, env),
    maxReruns: intEnv("MAX_RERUNS", DEFAULT_LIMITS.maxReruns, env),
    approvalTimeoutSeconds: intEnv("APPROVAL_TIMEOUT_SECONDS", DEFAULT_LIMITS.approvalTimeoutSeconds, env),
    warnChangePercent: intEnv("WARN_CHANGE_PERCENT", DEFAULT_LIMITS.warnChangePercent, env),
    warnChangeYen: intEnv("WARN_CHANGE_YEN", DEFAULT_LIMITS.warnChangeYen, env),
  };
}

/** Users who may act on any task besides its requester (docs/architecture.md, who may act); workspace settings can add more. */
export function loadAdminUserIds(env: Env = process.env): string[] {
  return listEnv("ADMIN_USER_IDS", env);
}
