import { defineConfig } from "vitest/config";

const shared = {
  setupFiles: ["test/setup/polyfills.ts", "test/setup/scripted-replies.ts"],
  // One DynamoDB Local (Java 17) for the run; each test file makes its own tables on it (test/support/dynamo.ts).
  globalSetup: ["test/setup/dynamodb-local.ts"],
  // Integration tests start in-process servers (fake Slack/Anthropic/freee) on ephemeral ports.
  testTimeout: 30_000,
  hookTimeout: 30_000,
};

export default defineConfig({
  test: {
    pool: "forks",
    projects: [{ test: { ...shared, name: "all", include: ["test/**/*.test.ts"] } }],
  },
});
