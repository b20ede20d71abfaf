import { spawn } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Ledger } from "../../lib/store/ledger";
import { audit, Browser, seedTask, startAdmin, USERS, type AdminHarness } from "./harness";

/**
 * The dashboard's picture and numbers are the ledger `npm run report` prints for the same period and workspace:
 * the report runs as its own process (scripts/report.ts, as a person runs it) on the same DynamoDB Local table.
 */
let h: AdminHarness;
beforeAll(async () => {
  h = await startAdmin();
  const at = (day: number, hour: number) => `2026-10-${String(day).padStart(2, "0")}T${String(hour).padStart(2, "0")}:00:00.000Z`;
  const outcomes = ["execution.completed", "execution.completed", "error.L4", "execution.timed_out", "execution.cancelled", "task.answered", "error.L1", "error.L4"];
  for (const [i, action] of outcomes.entries()) {
    const task = await seedTask(h, "T0001", USERS.member1.id, `10月の依頼 ${i}`, at(3 + i * 3, 1));
    const layer = action.startsWith("error.") ? (action.slice(6) as "L1" | "L4") : undefined;
    const errorType = action === "error.L1" ? "MalformedOutputError" : action === "error.L4" ? (i === 2 ? "AuthError" : "AgentRunFailedError") : action === "execution.timed_out" ? "RunTimeoutError" : undefined;
    await audit(h, { teamId: "T0001", taskId: task.taskId, action, subject: "end#1", actor: "system", at: at(3 + i * 3, 2), ...(layer === undefined ? {} : { layer }), ...(errorType === undefined ? {} : { errorType }) });
  }
  // A task still in progress, one of the month before, and one of the other workspace: each counted where it belongs.
  await seedTask(h, "T0001", USERS.member1.id, "進行中", at(30, 5));
  await seedTask(h, "T0001", USERS.member1.id, "9月の依頼", "2026-09-30T23:00:00.000Z");
  await seedTask(h, "T0002", USERS.member2.id, "他のワークスペース", at(10, 1));
});
afterAll(async () => h?.close());

/** `npm run report` as its own process, awaited to its exit: the test's limit is the clock, its signal ends the child. */
function report(signal: AbortSignal, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, TABLE_NAME: h.table.tableName, DYNAMODB_ENDPOINT: h.table.endpoint, AWS_REGION: "us-east-1", AWS_ACCESS_KEY_ID: "local", AWS_SECRET_ACCESS_KEY: "local" };
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/report.ts", ...args], { cwd: process.cwd(), env, signal });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (err += c.toString("utf8")));
    child.once("error", reject);
    child.once("close", (status) => (status === 0 ? resolve(out) : reject(new Error(`report exited ${status}: ${err}`))));
  });
}

it("the dashboard of October shows the numbers and bars of npm run report --since 2026-10-01 --until 2026-10-31 --team T0001", async ({ signal }) => {
  const ledger = JSON.parse(await report(signal, ["--since", "2026-10-01", "--until", "2026-10-31", "--team", "T0001", "--json"])) as Ledger;
  const b = new Browser(h.url);
  await b.signIn(USERS.admin1.id);
  const html = await (await b.get("/admin/dashboard?month=2026-10")).text();

  const shown = Object.fromEntries([...html.matchAll(/<tr data-outcome="([a-z_]+)"><td>.*?<\/td><td class="num">(\d+)<\/td><\/tr>/g)].map((m) => [m[1], Number(m[2])]));
  expect(shown).toEqual(ledger.byOutcome);
  expect(Number(/data-outcome="total"><th>.*?<\/th><td class="num">(\d+)</.exec(html)?.[1])).toBe(ledger.tasks.length);
  const failures = [...html.matchAll(/<tr data-layer="([^"]+)" data-class="([^"]+)">.*?<td class="num">(\d+)<\/td><\/tr>/g)].map((m) => ({ layer: m[1], errorClass: m[2], count: Number(m[3]) }));
  expect(failures).toEqual(ledger.failuresByClass);
  // The bars: each task once, on the day of its deciding entry, adding up to the same totals per outcome.
  const bars = [...html.matchAll(/<rect [^>]*data-outcome="([a-z_]+)" data-count="(\d+)"/g)];
  const barTotals: Record<string, number> = {};
  for (const [, outcome, count] of bars) barTotals[outcome!] = (barTotals[outcome!] ?? 0) + Number(count);
  expect(barTotals).toEqual(Object.fromEntries(Object.entries(ledger.byOutcome).filter(([, n]) => n > 0)));
  // Sanity of the seeds: the report saw this workspace's October only.
  expect(ledger.tasks.length).toBe(9);
  expect(ledger.byOutcome.completed).toBe(2);
}, 120_000);
