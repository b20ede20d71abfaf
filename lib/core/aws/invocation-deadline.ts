import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The remaining time of the Lambda invocation being served (`context.getRemainingTimeInMillis()`), carried
 * through the request so code deep inside it (a freee rate-limit wait) can decide not to start a wait the
 * invocation would not survive. Outside an invocation (local dev server, tests) there is none.
 */
const invocation = new AsyncLocalStorage<() => number>();

export function withRemainingTime<T>(remainingMs: () => number, run: () => Promise<T>): Promise<T> {
  return invocation.run(remainingMs, run);
}

/** Milliseconds left in the current invocation, or undefined outside one. */
export function invocationRemainingTimeMs(): number | undefined {
  return invocation.getStore()?.();
}
