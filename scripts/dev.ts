import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { devOutputsFile, devStackFile, localStackOutputs, removeDevStackFile, writeDevOutputsFile, writeDevStackFile } from "../dev/local/dev-stack-file";
import { runCli, UsageError } from "./cli";

/**
 * `npm run dev`: the whole stack on 127.0.0.1 (see docs/dev.md). Settings come from `.env` (ENV_FILE to use
 * another file); the process environment wins over the file. Ctrl-C stops it; data stays under DATA_DIR.
 * While it runs, .local/dev-stack.json (DEV_STACK_FILE) says where its table is: `npm run report` reads it.
 */
await runCli("npm run dev", async () => {
  // No flags: settings come from .env; anything given is refused rather than ignored.
  parseArgs({ options: {} });
  const envFile = process.env.ENV_FILE ?? ".env";
  if (process.env.ENV_FILE !== undefined && !existsSync(envFile)) throw new UsageError(`ENV_FILE ${envFile} does not exist`, "point ENV_FILE at your settings file, or unset it to read .env");
  if (existsSync(envFile)) {
    process.loadEnvFile(envFile);
  }
  process.env.LOG_LEVEL ??= "WARN";
  // EMF metric lines are for CloudWatch; locally they would drown the log (set to false to see them).
  process.env.POWERTOOLS_METRICS_DISABLED ??= "true";

  // The stack's modules load after the flags and the .env file are checked: a bad flag answers at once.
  const { startLocalStack } = await import("../dev/local/local-stack");
  const stack = await startLocalStack(process.env);
  const { slack, model, freee } = stack.mode;
  const stackFile = devStackFile();
  writeDevStackFile(stackFile, {
    url: stack.url,
    tableName: stack.env.TABLE_NAME!,
    dynamodbEndpoint: stack.env.DYNAMODB_ENDPOINT!,
    region: stack.env.AWS_REGION!,
    pid: process.pid,
    startedAt: new Date().toISOString(),
  });
  // The URLs as `cdk deploy --outputs-file` gives them: `npm run smoke -- --outputs .local/cdk-outputs.json`.
  const outputsFile = devOutputsFile();
  writeDevOutputsFile(outputsFile, localStackOutputs(stack.url, stack.env.TABLE_NAME!));
  console.log(
    [
      "",
      `slack-mcp-agent local stack on ${stack.url}`,
      slack === "sandbox" ? `  sandbox page:   ${stack.url}/sandbox` : `  Slack (${slack}): point Request URLs at <your tunnel>/slack/events`,
      `  Slack events:   ${stack.url}/slack/events`,
      `  freee MCP:      ${stack.env.MCP_SERVER_URL}`,
      `  model:          ${model === "scripted" ? "scripted (set ANTHROPIC_API_KEY for the real API)" : "Anthropic API"}`,
      `  freee:          ${freee === "scripted" ? "scripted company (set FREEE_CLIENT_ID / FREEE_CLIENT_SECRET for the real API)" : "freee API"}`,
      `  data:           ${process.env.DATA_DIR ?? ".data"}`,
      `  table:          ${stack.env.TABLE_NAME} at ${stack.env.DYNAMODB_ENDPOINT} (\`npm run report -- --since YYYY-MM-DD\` finds it)`,
      `  outputs:        ${outputsFile} (\`npm run smoke -- --outputs ${outputsFile}\`)`,
      ...(model === "anthropic" && /^https?:\/\/(127\.|localhost)/.test(stack.env.MCP_SERVER_URL ?? "")
        ? ["  warning:        Managed Agents cannot reach a loopback MCP_SERVER_URL: set PUBLIC_BASE_URL to your tunnel"]
        : []),
      ...(stack.freeeConnectUrl === undefined ? [] : [`  connect freee:  ${stack.freeeConnectUrl}`]),
      "",
    ].join("\n"),
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping`);
    removeDevStackFile(stackFile, process.pid);
    stack.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error("shutdown failed", err);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
});
