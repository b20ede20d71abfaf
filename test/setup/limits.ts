/**
 * The suite's clocks, in one place: vitest's per-test limits (vitest.config.ts). A test waits on events; these
 * limits end a wait that never comes. They are budgets for a loaded 2-core machine, never timing checks.
 */
/** Every test and hook, unless its file is one of the process-waiting ones. */
export const TEST_LIMIT_MS = 120_000;
/** Files that wait on a child process or a browser (PROCESS_WAIT_TESTS in vitest.config.ts). */
export const PROCESS_WAIT_LIMIT_MS = 300_000;
