import { ANTHROPIC_TIMEOUT_MS } from "../lib/model/anthropic-client";
import { SLACK_FILE_DOWNLOAD_TIMEOUT_MS } from "../lib/mcp/slack-files";
import { EVENT_PAGE_SIZE, MAX_EVENTS_PER_POLL } from "../lib/model/agent/managed-agent-runner";
import { AWS_CONTROL_CALL, DYNAMODB_CALL, SFN_CALL, SLACK_CALL, worstCallMs } from "../lib/core/config/client-budgets";
import { FREEE_CLIENT_DEFAULTS } from "../lib/freee/client";
import { FREEE_TOKEN_DEFAULTS } from "../lib/freee/token-manager";
import { LAYER_DEFAULTS, type LayerName } from "../lib/model/settings";
import { WRITE_CALL_DEFAULTS } from "../lib/mcp/write-call";
import { MAX_PREVIEW_READS, PREVIEW_CLIENT, PREVIEW_READ_CONCURRENCY } from "../lib/preview/reader";
import type { StepFunctionName } from "./state-machines/functions";

/**
 * Every Lambda's timeout, derived from the worst case of the work it may do: each call it can make,
 * at its client's per-attempt timeout × attempts, plus every wait its retry policy allows. A function killed by
 * its own timeout throws `Sandbox.Timedout`, which the error table retries like a transient error: that must
 * stay the exception (a hung host), never what a legitimate retry budget runs into.
 */
export interface BudgetItem {
  what: string;
  ms: number;
}

export type BudgetedFunction = StepFunctionName | "freee-mcp" | "reconcile-execution";

/** Upper bounds counted from the code of the step handlers (task history read, conditional writes, audit, card). */
const BOOKKEEPING = { dynamo: 12, slack: 3 };
/** Secrets Manager reads and a KMS call on a cold start. */
const COLD_START_CALLS = 3;
/** Slack of headroom over the computed worst case (runtime start, JSON, logging). */
const MARGIN_MS = 5_000;

const times = (n: number, ms: number) => n * ms;

function bookkeeping(extraDynamo = 0): BudgetItem[] {
  return [
    { what: `DynamoDB × ${BOOKKEEPING.dynamo + extraDynamo}`, ms: times(BOOKKEEPING.dynamo + extraDynamo, worstCallMs(DYNAMODB_CALL)) },
    { what: `Slack × ${BOOKKEEPING.slack}`, ms: times(BOOKKEEPING.slack, worstCallMs(SLACK_CALL)) },
    { what: `cold start (Secrets Manager / KMS) × ${COLD_START_CALLS}`, ms: times(COLD_START_CALLS, worstCallMs(AWS_CONTROL_CALL)) },
  ];
}

function layer(name: LayerName): BudgetItem[] {
  // One Messages call per invocation: SDK retries are off, Step Functions retries (docs/architecture.md, shape on AWS).
  return [{ what: `${name} Messages call`, ms: LAYER_DEFAULTS[name].timeoutMs }, ...bookkeeping()];
}

function agentCalls(what: string, calls: number): BudgetItem {
  return { what: `Managed Agents × ${calls} (${what})`, ms: times(calls, ANTHROPIC_TIMEOUT_MS.agent) };
}

const EVENT_PAGES = Math.ceil(MAX_EVENTS_PER_POLL / EVENT_PAGE_SIZE);

/** One freee tool call: every request timing out, every retry the client allows, one refresh under its lease. */
function freeeToolCall(): BudgetItem[] {
  const f = FREEE_CLIENT_DEFAULTS;
  const requests = 1 + f.maxServerRetries + f.maxRateLimitRetries + 1;
  const backoff = Array.from({ length: f.maxServerRetries }, (_, i) => f.backoffBaseMs * 2 ** i).reduce((a, b) => a + b, 0);
  return [
    { what: `freee requests × ${requests}`, ms: times(requests, f.requestTimeoutMs) },
    { what: `429 waits × ${f.maxRateLimitRetries}`, ms: times(f.maxRateLimitRetries, f.maxRetryAfterSeconds * 1000) },
    { what: "5xx backoff", ms: backoff },
    ...tokenRefresh(),
    ...bookkeeping(),
  ];
}

/** One freee token refresh: the lease, the token endpoint, storing (or parking) the new tokens. */
function tokenRefresh(): BudgetItem[] {
  return [
    { what: "token refresh (lease + token endpoint)", ms: FREEE_TOKEN_DEFAULTS.refreshLeaseMs + 10_000 },
    {
      what: `refreshed-token writes × ${FREEE_TOKEN_DEFAULTS.storeAttempts} + parking`,
      ms: times(FREEE_TOKEN_DEFAULTS.storeAttempts + 1, worstCallMs(DYNAMODB_CALL)) + FREEE_TOKEN_DEFAULTS.storeBackoffMs * (2 ** (FREEE_TOKEN_DEFAULTS.storeAttempts - 1) - 1),
    },
  ];
}

/**
 * The preview: at most MAX_PREVIEW_READS freee GETs, PREVIEW_READ_CONCURRENCY at a time, each at most its request
 * timeout (the client retries nothing: Step Functions does), plus one token refresh under its lease.
 */
function previewReads(): BudgetItem[] {
  const rounds = Math.ceil(MAX_PREVIEW_READS / PREVIEW_READ_CONCURRENCY);
  return [
    { what: `freee reads × ${MAX_PREVIEW_READS} (${PREVIEW_READ_CONCURRENCY} at a time)`, ms: times(rounds, PREVIEW_CLIENT.requestTimeoutMs) },
    ...tokenRefresh(),
    ...bookkeeping(),
  ];
}

export const LAMBDA_BUDGETS: Record<BudgetedFunction, () => BudgetItem[]> = {
  "create-task": () => bookkeeping(),
  "analyze-task": () => layer("L1"),
  "generate-prompt": () => layer("L2"),
  "generate-process": () => layer("L3"),
  "preview-process": previewReads,
  "await-approval": () => bookkeeping(),
  "handle-rejection": () => bookkeeping(),
  "expire-approval": () => bookkeeping(),
  "start-run": () => [{ what: "StartExecution", ms: worstCallMs(SFN_CALL) }, ...bookkeeping()],
  "record-pipeline-failure": () => bookkeeping(),
  // agent + environment (get or create), session lookup, vault, credential, session, initial events
  "start-session": () => [agentCalls("setup and session create", 9), ...bookkeeping()],
  // retrieve, event pages, last message, interrupt on timeout, vault archive
  "poll-session": () => [agentCalls("retrieve, events, last message, interrupt, vault", 1 + EVENT_PAGES + 1 + 1 + 2), ...bookkeeping()],
  // interrupt, vault archive
  "record-run-failure": () => [agentCalls("interrupt, vault", 3), ...bookkeeping()],
  "freee-mcp": freeeMcpCall,
  // interrupt (agent setup on a cold start), the task's history, conditional writes, audit, up to 4 cards
  "reconcile-execution": () => [agentCalls("setup, interrupt", 3), ...bookkeeping(), { what: "Slack × 2 (more cards)", ms: times(2, worstCallMs(SLACK_CALL)) }],
};

/**
 * A write tool call may also settle an earlier attempt: read back (its budget), write, and read back again
 * after a lost reply (the wait and the budget), with the write ledger's conditional writes.
 */
function freeeMcpCall(): BudgetItem[] {
  const w = WRITE_CALL_DEFAULTS;
  return [
    ...freeeToolCall(),
    { what: "wait before a read back", ms: w.reconcileDelayMs },
    { what: "write read backs × 2", ms: times(2, w.reconcileBudgetMs) },
    { what: "write ledger DynamoDB × 5", ms: times(5, worstCallMs(DYNAMODB_CALL)) },
    // The ledger's record of a write freee took, retried through a throttle (lib/mcp/write-call.ts).
    {
      what: `write ledger completion × ${w.ledgerAttempts} + backoff`,
      ms: times(w.ledgerAttempts, worstCallMs(DYNAMODB_CALL)) + Array.from({ length: w.ledgerAttempts - 1 }, (_, i) => w.ledgerBackoffMs * 2 ** i).reduce((a, b) => a + b, 0),
    },
    // A file-box upload: the task's attachments, files.info and the file's download from Slack.
    { what: "upload's Slack file (task read, files.info, download)", ms: worstCallMs(DYNAMODB_CALL) + worstCallMs(SLACK_CALL) + SLACK_FILE_DOWNLOAD_TIMEOUT_MS },
  ];
}

export function worstCaseMs(fn: BudgetedFunction): number {
  return LAMBDA_BUDGETS[fn]().reduce((sum, item) => sum + item.ms, 0);
}

/** The Lambda timeout: the worst case plus a margin, in whole seconds (Lambda's maximum is 900). */
export function lambdaTimeoutSeconds(fn: BudgetedFunction): number {
  const seconds = Math.ceil((worstCaseMs(fn) + MARGIN_MS) / 1000);
  if (seconds > 900) throw new Error(`${fn}: worst case ${seconds} s exceeds Lambda's 900 s; lower its retry budget`);
  return seconds;
}
