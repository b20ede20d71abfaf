import { defineConfig } from "vitest/config";
import { PROCESS_WAIT_LIMIT_MS, TEST_LIMIT_MS } from "./test/setup/limits.js";

/**
 * Test files that need a process of their own (`isolate: true`, the default): files that start whole stacks or
 * child processes and set the environment for them, and files that import a Lambda handler (lambdas/), whose
 * module state is its cold start (clients, settings, the cold-start flag), so a second import in the same process
 * would not be cold. test/architecture/test-isolation.test.ts keeps this list complete.
 */
export const ISOLATED_TESTS = [
  "test/e2e/**/*.test.ts",
  "test/bundle/**/*.test.ts",
  "test/commands/**/*.test.ts",
  // Runs npm run report as its own process.
  "test/web-admin/dashboard-report.test.ts",
  "test/chaos/**/*.test.ts",
  "test/bench/**/*.test.ts",
  "test/core/observability/invocation-context.test.ts",
  "test/freee/token-refresher.ddb.test.ts",
  "test/mcp/handler-deadline.ddb.test.ts",
  "test/mcp/handler.ddb.test.ts",
  "test/steps/older-payloads.test.ts",
  "test/steps/reconcile.test.ts",
  "test/steps/run-held-writes.test.ts",
];

/**
 * Isolated files that wait on a child process (a command, the dev server) or a browser. They wait on the event
 * itself (a ready line, the child's exit, the page showing the text) with no clock of their own, so the test's
 * limit below is the only one: set for a loaded 2-core machine, where a start takes several times a quiet one's.
 * `expect.poll` gets the same limit (its own default is 1 s), and a test's AbortSignal ends its children.
 */
export const PROCESS_WAIT_TESTS = ["test/e2e/browser.test.ts", "test/e2e/browser-faults.test.ts", "test/commands/**/*.test.ts", "test/web-admin/dashboard-report.test.ts"];

const shared = {
  // fresh-env first: every file starts from the run's environment, also when it shares a worker.
  setupFiles: ["test/setup/fresh-env.ts", "test/setup/environment.ts", "test/setup/scripted-replies.ts"],
  // One DynamoDB Local (Java 17) for the run; each test file makes its own tables on it (test/support/dynamo.ts).
  globalSetup: ["test/setup/dynamodb-local.ts"],
  // Integration tests start in-process servers (fake Slack/Anthropic/freee) on ephemeral ports. These are budgets
  // for a loaded 2-core machine (a hung test still fails), never timing checks: a file two to three times slower
  // than on a quiet machine must still pass.
  testTimeout: TEST_LIMIT_MS,
  hookTimeout: TEST_LIMIT_MS,
};

/**
 * Test files at once. vitest's default on a 2-core machine is 1, but most files wait (on ports, DynamoDB Local,
 * the local state machines' polls), so 2 overlap well; TEST_WORKERS overrides it (docs/dev.md has the
 * measurements).
 */
const workers = Number(process.env.TEST_WORKERS ?? 2);

export default defineConfig({
  test: {
    pool: "forks",
    maxWorkers: workers,
    reporters: ["default", "./test/setup/slowest-files.ts"],
    projects: [
      // Most files only import the domain and talk to fakes: they share a worker's module cache, which saves
      // importing the AWS SDK, Bolt and the MCP SDK again for every file (about 1.5 s of CPU per file).
      { test: { ...shared, name: "shared", isolate: false, include: ["test/**/*.test.ts"], exclude: ISOLATED_TESTS } },
      { test: { ...shared, name: "isolated", isolate: true, include: ISOLATED_TESTS, exclude: PROCESS_WAIT_TESTS } },
      {
        test: {
          ...shared,
          name: "process-waits",
          isolate: true,
          include: PROCESS_WAIT_TESTS,
          testTimeout: PROCESS_WAIT_LIMIT_MS,
          hookTimeout: PROCESS_WAIT_LIMIT_MS,
          expect: { poll: { timeout: PROCESS_WAIT_LIMIT_MS } },
        },
      },
    ],
  },
});
