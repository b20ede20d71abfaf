import { Duration } from "aws-cdk-lib";
import type * as sfn from "aws-cdk-lib/aws-stepfunctions";
import { ErrorNames } from "../../lib/core/errors/taxonomy";

/**
 * The error table (docs/architecture.md, error table) as Retry blocks. Step Functions is the only place that retries
 * (SDK retries are off, LambdaInvoke's own service-exception retry is off), so what is written here is what
 * happens, and every attempt shows in the execution history. Anything not retried here is caught by the
 * state's Catch and goes to the machine's one failure path.
 */

/** Lambda's own service faults (throttling, a sandbox that failed): transient like the upstream ones. */
export const LAMBDA_SERVICE_ERRORS = [
  "Lambda.ServiceException",
  "Lambda.AWSLambdaException",
  "Lambda.SdkClientException",
  "Lambda.TooManyRequestsException",
] as const;

/**
 * A Lambda killed by its own timeout (`Sandbox.Timedout`) or failing without an error type (`Lambda.Unknown`, e.g.
 * out of memory): a hung or sick host, not a verdict on the request. Every step Lambda is safe to repeat (status
 * changes are conditional writes, the audit key is deterministic, session creation finds an earlier session of its
 * execution first), so these are retried like transient errors. Timeouts are derived from each function's worst
 * case (infra/lambda-budgets.ts), so a legitimate retry budget never runs into them.
 */
export const LAMBDA_RUNTIME_ERRORS = ["Sandbox.Timedout", "Lambda.Unknown"] as const;

export interface RetryRow {
  errors: readonly string[];
  maxAttempts: number;
  interval: Duration;
  backoffRate: number;
  /** Cap of one pause (Step Functions' MaxDelaySeconds). */
  maxDelay?: Duration;
}

const BACKOFF = { interval: Duration.seconds(2), backoffRate: 2 };

/** 429, 5xx, network, throttling → exponential backoff, 3 retries. */
export const TRANSIENT: RetryRow = { errors: [...ErrorNames.transient, ...LAMBDA_SERVICE_ERRORS, ...LAMBDA_RUNTIME_ERRORS], maxAttempts: 3, ...BACKOFF };
/**
 * The failure path itself (RecordPipelineFailure, RecordRunFailure, the approval expiry): it is what tells the
 * user, so it outlasts a throttling burst or a Slack outage of minutes — 12 retries, the pause doubling from 2 s
 * and capped at 60 s (about 8 minutes in all) — instead of giving up after 14 s. Past that, the reconciler
 * (EventBridge on the machine's FAILED status) is the second line.
 */
export const TRANSIENT_FAILURE_PATH: RetryRow = { ...TRANSIENT, maxAttempts: 12, maxDelay: Duration.seconds(60) };
/** Session creation failure → 2 retries, then failed. */
export const TRANSIENT_SESSION_CREATE: RetryRow = { ...TRANSIENT, maxAttempts: 2 };
/** A request timeout (Anthropic APITimeoutError) → 2 retries. */
export const UPSTREAM_TIMEOUT: RetryRow = { errors: ErrorNames.timeout, maxAttempts: 2, ...BACKOFF };
/** Empty or cut-off 200 OK → 1 retry. */
export const SILENT_FAILURE: RetryRow = { errors: ErrorNames.silentRetryOnce, maxAttempts: 1, ...BACKOFF };
/** JSON parse error / missing key → 1 retry (L3 does it with a Catch loop to carry the error). */
export const MALFORMED: RetryRow = { errors: ErrorNames.malformed, maxAttempts: 1, ...BACKOFF };

export function addRetries(state: sfn.TaskStateBase, rows: readonly RetryRow[]): void {
  for (const row of rows) {
    state.addRetry({
      errors: [...row.errors],
      maxAttempts: row.maxAttempts,
      interval: row.interval,
      backoffRate: row.backoffRate,
      ...(row.maxDelay === undefined ? {} : { maxDelay: row.maxDelay }),
    });
  }
}

/** Rows per kind of state. */
export const RETRIES = {
  /** L1 and L2: transient, timeout, silent failure, malformed — each retried its number of times. */
  layer: [TRANSIENT, UPSTREAM_TIMEOUT, SILENT_FAILURE, MALFORMED],
  /** L3: the same, but MalformedOutputError goes through the Catch loop that carries the validation error. */
  layerL3: [TRANSIENT, UPSTREAM_TIMEOUT, SILENT_FAILURE],
  /**
   * The preview's freee reads (the client's own retries are off): freee 429 / 5xx / network and DynamoDB
   * throttling 3 times, a freee timeout 2 times. AuthError (the connection) and everything else are caught.
   */
  preview: [TRANSIENT, UPSTREAM_TIMEOUT],
  /** L4 session create. */
  sessionCreate: [TRANSIENT_SESSION_CREATE, UPSTREAM_TIMEOUT],
  /** L4 poll. */
  poll: [TRANSIENT, UPSTREAM_TIMEOUT],
  /** Bookkeeping steps (DynamoDB, Slack, StartExecution): transient only. */
  bookkeeping: [TRANSIENT],
  /** The failure path's bookkeeping: transient only, for minutes. */
  failurePath: [TRANSIENT_FAILURE_PATH],
} as const;
