import { defineConfig } from "vitest/config";

const shared = {
  setupFiles: ["test/setup/polyfills.ts"],
  // Integration tests start in-process servers (dynalite, fake Slack/Anthropic/freee) on ephemeral ports.
  testTimeout: 30_000,
  hookTimeout: 30_000,
};

export default defineConfig({
  test: {
    pool: "forks",
    projects: [
      { test: { ...shared, name: "all", include: ["test/**/*.test.ts"] } },
      // The DynamoDB integration tests, re-run against DynamoDB Local by `npm run test:ddb-local`.
      { test: { ...shared, name: "dynamodb", include: ["test/store/**/*.test.ts", "test/**/*.ddb.test.ts"] } },
    ],
  },
});
