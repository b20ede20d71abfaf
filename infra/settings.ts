import { FatalConfigError } from "../lib/core/errors/taxonomy";
import type { Node } from "constructs";
import { DEFAULT_LIMITS, type Limits } from "../lib/core/config/limits";
import { DEFAULT_AGENT_MODEL } from "../lib/model/agent/agent-config";
import { LAYER_DEFAULTS } from "../lib/model/settings";

/**
 * Stack settings, from CDK context (`cdk.json` or `-c key=value`), with the defaults of docs/architecture.md (limits). The Lambdas get
 * them as environment variables (lib/core/config/limits.ts, lib/model/settings.ts, lib/model/agent/agent-config.ts).
 */
export interface StackSettings extends Limits {
  l1Model: string;
  l2Model: string;
  l3Model: string;
  agentModel: string;
  /** Slack user ids who may approve / reject / rerun / cancel any task, besides its requester (docs/architecture.md, who may act). */
  adminUserIds: string[];
  logRetentionDays: number;
  /**
   * The web Function URL (output WebUrl, or a custom domain in front of it), for freee connect links and the
   * freee callback. A function cannot reference its own URL in CloudFormation, so it is given after the first
   * deploy (docs/infra.md); until then the freee connect routes fail loudly (FatalConfigError).
   */
  publicBaseUrl: string | undefined;
  /** Subscribed to the alarm topic when given (context `alarmEmail`). */
  alarmEmail: string | undefined;
  /** The daily refresh renews freee refresh tokens older than this (they lapse after 90 days). */
  freeeRefreshAfterDays: number;
  /**
   * Reserved concurrency of the three public functions (a request flood cannot starve the step Lambdas, whose
   * failure paths must run). 0: unreserved — for an account whose concurrency limit is too low to reserve
   * (AWS keeps 100 unreserved).
   */
  ingressReservedConcurrency: number;
  webReservedConcurrency: number;
  freeeMcpReservedConcurrency: number;
}

export const DEFAULT_SETTINGS: StackSettings = {
  ...DEFAULT_LIMITS,
  l1Model: LAYER_DEFAULTS.L1.model,
  l2Model: LAYER_DEFAULTS.L2.model,
  l3Model: LAYER_DEFAULTS.L3.model,
  agentModel: DEFAULT_AGENT_MODEL,
  adminUserIds: [],
  logRetentionDays: 90,
  publicBaseUrl: undefined,
  alarmEmail: undefined,
  freeeRefreshAfterDays: 60,
  // Slack answers within 3 s and retries: 25 concurrent ingress requests are ~25+ per second.
  ingressReservedConcurrency: 25,
  // Install and freee connect pages: a person at a browser, a handful at a time.
  webReservedConcurrency: 5,
  // One agent session calls its tools one after another: 10 concurrent tool calls.
  freeeMcpReservedConcurrency: 10,
};

/** Reads every setting from context; numbers and lists given with `-c` arrive as strings and are parsed. */
export function loadStackSettings(node: Node): StackSettings {
  const int = (key: keyof StackSettings & keyof Limits | "logRetentionDays" | "freeeRefreshAfterDays"): number => {
    const raw: unknown = node.tryGetContext(key);
    if (raw === undefined) return DEFAULT_SETTINGS[key];
    const value = typeof raw === "number" ? raw : Number(raw);
    if (!Number.isInteger(value) || value <= 0) throw new FatalConfigError(`context ${key} must be a positive integer, got ${JSON.stringify(raw)}`, { details: { setting: "context" } });
    return value;
  };
  const str = (key: "l1Model" | "l2Model" | "l3Model" | "agentModel"): string => {
    const raw: unknown = node.tryGetContext(key);
    if (raw === undefined) return DEFAULT_SETTINGS[key];
    if (typeof raw !== "string" || raw.trim() === "") throw new FatalConfigError(`context ${key} must be a non-empty string`, { details: { setting: "context" } });
    return raw;
  };
  const concurrency = (key: "ingressReservedConcurrency" | "webReservedConcurrency" | "freeeMcpReservedConcurrency"): number => {
    const raw: unknown = node.tryGetContext(key);
    if (raw === undefined) return DEFAULT_SETTINGS[key];
    const value = typeof raw === "number" ? raw : Number(raw);
    if (!Number.isInteger(value) || value < 0) throw new FatalConfigError(`context ${key} must be 0 (unreserved) or a positive integer, got ${JSON.stringify(raw)}`, { details: { setting: "context" } });
    return value;
  };
  const admins: unknown = node.tryGetContext("adminUserIds");
  const adminUserIds =
    admins === undefined ? [] : Array.isArray(admins) ? admins.map(String) : String(admins).split(",").map((s) => s.trim()).filter((s) => s !== "");
  return {
    pollIntervalSeconds: int("pollIntervalSeconds"),
    runTimeoutSeconds: int("runTimeoutSeconds"),
    maxRegenerations: int("maxRegenerations"),
    maxReruns: int("maxReruns"),
    approvalTimeoutSeconds: int("approvalTimeoutSeconds"),
    warnChangePercent: int("warnChangePercent"),
    warnChangeYen: int("warnChangeYen"),
    logRetentionDays: int("logRetentionDays"),
    l1Model: str("l1Model"),
    l2Model: str("l2Model"),
    l3Model: str("l3Model"),
    agentModel: str("agentModel"),
    adminUserIds,
    publicBaseUrl: publicBaseUrlOf(node.tryGetContext("publicBaseUrl")),
    alarmEmail: alarmEmailOf(node.tryGetContext("alarmEmail")),
    freeeRefreshAfterDays: refreshAfterDaysOf(int("freeeRefreshAfterDays")),
    ingressReservedConcurrency: concurrency("ingressReservedConcurrency"),
    webReservedConcurrency: concurrency("webReservedConcurrency"),
    freeeMcpReservedConcurrency: concurrency("freeeMcpReservedConcurrency"),
  };
}

/** freee refresh tokens lapse 90 days after issue: a refresh later than that would find them gone. */
function refreshAfterDaysOf(days: number): number {
  if (days >= 90) throw new FatalConfigError(`context freeeRefreshAfterDays must be below 90 (freee refresh tokens lapse after 90 days), got ${days}`, { details: { setting: "context" } });
  return days;
}

function alarmEmailOf(raw: unknown): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (typeof raw !== "string" || !/^[^\s@]+@[^\s@]+$/.test(raw)) throw new FatalConfigError(`context alarmEmail must be an e-mail address, got ${JSON.stringify(raw)}`, { details: { setting: "context" } });
  return raw;
}

function publicBaseUrlOf(raw: unknown): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (typeof raw !== "string" || !/^https:\/\/[^\s/]+/.test(raw)) throw new FatalConfigError(`context publicBaseUrl must be an https URL, got ${JSON.stringify(raw)}`, { details: { setting: "context" } });
  return raw.replace(/\/+$/, "");
}

/** The environment every Lambda gets for the limits (names of lib/core/config/limits.ts). */
export function limitsEnvironment(settings: StackSettings): Record<string, string> {
  return {
    POLL_INTERVAL_SECONDS: String(settings.pollIntervalSeconds),
    RUN_TIMEOUT_SECONDS: String(settings.runTimeoutSeconds),
    MAX_REGENERATIONS: String(settings.maxRegenerations),
    MAX_RERUNS: String(settings.maxReruns),
    APPROVAL_TIMEOUT_SECONDS: String(settings.approvalTimeoutSeconds),
    WARN_CHANGE_PERCENT: String(settings.warnChangePercent),
    WARN_CHANGE_YEN: String(settings.warnChangeYen),
    ADMIN_USER_IDS: settings.adminUserIds.join(","),
  };
}
