import { defineConfig } from "vitest/config";

const shared = {
  setupFiles: ["test/setup/environment.ts", "test/setup/scripted-replies.ts"],
  // One DynamoDB Local (Java 17) for the run; each test file makes its own tables on it (test/support/dynamo.ts).
  globalSetup: ["test/setup/dynamodb-local.ts"],
  // Integration tests start in-process servers (fake Slack/Anthropic/freee) on ephemeral ports. These are budgets
  // for a loaded 2-core machine (a hung test still fails), never timing checks: a file two to three times slower
  // than on a quiet machine must still pass.
  testTimeout: 120_000,
  hookTimeout: 120_000,
};

/**
 * Test files at once. vitest's default on a 2-core machine is 1, but most files wait (on ports, DynamoDB Local,
 * the local state machines' polls), so 2 overlap well; TEST_WORKERS overrides it (docs/testing.md has the
 * measurements).
 */
const workers = Number(process.env.TEST_WORKERS ?? 2);

export default defineConfig({
  test: {
    pool: "forks",
    maxWorkers: workers,
    reporters: ["default", "./test/setup/slowest-files.ts"],
    projects: [{ test: { ...shared, name: "all", include: ["test/**/*.test.ts"] } }],
  },
});
