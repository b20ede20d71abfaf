import { TransientError } from "../errors/taxonomy";
import { invocationRemainingTimeMs } from "./invocation-deadline";

/**
 * One retry loop for the writes that must not be lost to a throttled table: the ledger's record of a write
 * freee took (lib/mcp/write-call.ts) and refreshed freee tokens, stored or parked (lib/freee/token-manager.ts).
 * Transient failures are retried with doubling waits while the Lambda invocation has time for the wait plus
 * `reserveMs` (the next call and what must follow it); the caller decides what a final failure means.
 */
export interface TransientRetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** The first wait; each further wait doubles it. */
  backoffMs: number;
  /** Time that must be left after a wait for another attempt to start. */
  reserveMs: number;
  sleep?: (ms: number) => Promise<void>;
  /** The invocation's remaining time; by default the one carried by withRemainingTime. */
  remainingTimeMs?: () => number | undefined;
  /** Which failures are worth another attempt (TransientError by default). */
  retryable?: (err: unknown) => boolean;
  /** Called after each failed attempt, before the wait (to park a copy, log, count). */
  onFailure?: (err: unknown, attempt: number) => void | Promise<void>;
}

export type RetryOutcome<T> = { ok: true; value: T; attempts: number; waits: number[] } | { ok: false; error: unknown; attempts: number; waits: number[] };

export const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function retryTransient<T>(op: (attempt: number) => Promise<T>, policy: TransientRetryPolicy): Promise<RetryOutcome<T>> {
  const sleep = policy.sleep ?? defaultSleep;
  const remaining = policy.remainingTimeMs ?? invocationRemainingTimeMs;
  const retryable = policy.retryable ?? ((err: unknown) => err instanceof TransientError);
  const waits: number[] = [];
  for (let attempt = 1; ; attempt++) {
    try {
      return { ok: true, value: await op(attempt), attempts: attempt, waits };
    } catch (err) {
      await policy.onFailure?.(err, attempt);
      const waitMs = policy.backoffMs * 2 ** (attempt - 1);
      const left = remaining();
      const timeLeft = left === undefined || left > waitMs + policy.reserveMs;
      if (attempt >= policy.attempts || !retryable(err) || !timeLeft) return { ok: false, error: err, attempts: attempt, waits };
      waits.push(waitMs);
      await sleep(waitMs);
    }
  }
}
