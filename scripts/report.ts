// The ledger report: `npm run report -- --since 2026-11-01 [--until 2026-11-30] [--team T0123] [--json]`.
// Reads the audit log of the table named by TABLE_NAME (DYNAMODB_ENDPOINT for a local table).
import { parseArgs } from "node:util";
import { requireEnv } from "../lib/config/env";
import { buildLedger, renderLedger } from "../lib/report/ledger";
import { readAuditEntries } from "../lib/report/audit-source";
import { createDocumentClient } from "../lib/store/dynamo-client";
import { TaskStore } from "../lib/store/task-store";

const { values } = parseArgs({
  options: {
    since: { type: "string" },
    until: { type: "string" },
    team: { type: "string" },
    json: { type: "boolean", default: false },
  },
});

if (values.since === undefined || !/^\d{4}-\d{2}-\d{2}/.test(values.since)) {
  console.error("usage: npm run report -- --since YYYY-MM-DD [--until YYYY-MM-DD] [--team TEAM_ID] [--json]");
  process.exit(2);
}

const tableName = requireEnv("TABLE_NAME");
const doc = createDocumentClient();
const store = new TaskStore(doc, tableName);
const window = { since: values.since, until: values.until ?? new Date().toISOString().slice(0, 10), teamId: values.team };
const entries = await readAuditEntries({ store, doc, tableName }, window);
const ledger = buildLedger(entries, window);
console.log(values.json ? JSON.stringify(ledger, null, 2) : renderLedger(ledger));
doc.destroy();
