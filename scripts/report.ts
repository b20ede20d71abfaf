// The ledger report: `npm run report -- --since 2026-11-01 [--until 2026-11-30] [--team T0123] [--json]`.
// Reads the audit log of the table named by TABLE_NAME (AWS; DYNAMODB_ENDPOINT for another local table), or —
// with no TABLE_NAME — of the running `npm run dev`, found through .local/dev-stack.json (DEV_STACK_FILE).
import { devStackAnswers, devStackFile, readDevStackFile } from "../dev/local/dev-stack-file";
import { optionalEnv, requireEnv } from "../lib/core/config/env";
import { runCli, UsageError } from "./cli";
import { parseReportArgs } from "./report-args";

await runCli("npm run report", async () => {
  const args = parseReportArgs(process.argv.slice(2), new Date().toISOString().slice(0, 10));

  const env = await tableEnv();
  // The SDK and the store load after the flags are checked: a bad flag or date answers at once.
  const [{ buildLedger, renderLedger }, { readAuditEntries }, { createDocumentClient }, { TaskStore }] = await Promise.all([
    import("../lib/store/ledger"),
    import("../lib/store/audit-source"),
    import("../lib/store/dynamo-client"),
    import("../lib/store/task-store"),
  ]);
  const tableName = requireEnv("TABLE_NAME", env);
  const doc = createDocumentClient(env);
  try {
    const store = new TaskStore(doc, tableName);
    const window = { since: args.since, until: args.until, teamId: args.team };
    const entries = await readAuditEntries({ store, doc, tableName }, window);
    const ledger = buildLedger(entries, window);
    console.log(args.json ? JSON.stringify(ledger, null, 2) : renderLedger(ledger));
  } finally {
    doc.destroy();
  }
});

/** TABLE_NAME from the environment wins; without it, the table of the `npm run dev` that is running. */
async function tableEnv(): Promise<Record<string, string | undefined>> {
  if (optionalEnv("TABLE_NAME") !== undefined) return process.env;
  const file = devStackFile();
  const info = readDevStackFile(file);
  if (info === undefined) throw new UsageError("TABLE_NAME is not set and no `npm run dev` is running (no .local/dev-stack.json)", "start `npm run dev` in another terminal, or set TABLE_NAME and AWS_REGION for a deployed stack");
  if (!(await devStackAnswers(info))) throw new UsageError(`the npm run dev of ${file} (${info.url}, pid ${info.pid}) does not answer`, "start `npm run dev` again (the report reads its table while it runs), or set TABLE_NAME");
  process.stderr.write(`report: the table of npm run dev at ${info.url} (${info.tableName})\n`);
  return { ...process.env, TABLE_NAME: info.tableName, DYNAMODB_ENDPOINT: info.dynamodbEndpoint, AWS_REGION: info.region };
}
