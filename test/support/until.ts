import { PROCESS_WAIT_LIMIT_MS, TEST_LIMIT_MS } from "../setup/limits";

/** Longer than any test's limit: the test's own limit is always the clock that ends a wait. */
const NEVER_FIRST_MS = Math.max(TEST_LIMIT_MS, PROCESS_WAIT_LIMIT_MS);

/**
 * Polls `probe` until it gives a truthy value. It has no clock shorter than the test's: vitest's
 * limit ends a wait that never comes. Its own deadline, longer than every limit, only stops a loop whose test has
 * already failed, so that it does not poll on into the next test of a shared worker.
 */
export async function until<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, intervalMs = 15): Promise<T> {
  const stop = Date.now() + NEVER_FIRST_MS;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > stop) throw new Error(`still waiting for ${what} after the test's limit`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
