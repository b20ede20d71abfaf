import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import type { CellResult } from "../dev/chaos/run";
import { parseChaosArgs } from "./chaos-args";
import { runCli, UsageError } from "./cli";

/**
 * `npm run chaos [-- --only <text>] [--concurrency <n>] [--verbose]`: the fault matrix. Each cell runs one whole
 * local task with one fault and checks the invariants (dev/chaos/invariants.ts); the table goes to stdout and
 * the cells to chaos/results.json. Exit code 1 when a cell is broken.
 */
await runCli("npm run chaos", async () => {
  const { only, concurrency, verbose } = parseChaosArgs(process.argv.slice(2), Math.min(2, availableParallelism()));
  // Before the handlers load: their EMF metric lines are CloudWatch's input and their logs the cells' detail.
  if (!verbose) {
    process.env.LOG_LEVEL ??= "SILENT";
    process.env.POWERTOOLS_METRICS_DISABLED ??= "true";
  }
  const { CELLS, cellName } = await import("../dev/chaos/matrix");
  const cells = CELLS.filter((c) => only === undefined || cellName(c).toLowerCase().includes(only.toLowerCase()));
  if (cells.length === 0) throw new UsageError(`no cell matches --only ${JSON.stringify(only)}`, `use a dependency, step or fault from the table, e.g. --only freee (${CELLS.length} cells)`);

  console.log(`chaos: ${cells.length} cells, ${concurrency} at a time`);
  const started = Date.now();
  const { runCells } = await import("../dev/chaos/run");
  const results = await runCells(cells, concurrency, (r, cell) => {
    console.log(`${r.ok ? "ok  " : "FAIL"} ${cellName(cell).padEnd(58)} ${(r.ms / 1000).toFixed(1).padStart(5)} s${r.ok ? "" : `  ${r.detail}`}`);
  });
  const seconds = (Date.now() - started) / 1000;

  printTable(results);
  const ok = results.filter((r) => r.ok).length;
  console.log(`\n${ok} of ${results.length} cells ok in ${seconds.toFixed(0)} s`);
  const out = resolve("chaos/results.json");
  mkdirSync(resolve("chaos"), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ cells: results.map(({ dependency, step, fault, ok, detail }) => ({ dependency, step, fault, ok, detail })), ok, total: results.length, seconds }, null, 2)}\n`);
  console.log(`written ${out}`);
  process.exitCode = ok === results.length ? 0 : 1;
});

function printTable(rows: CellResult[]): void {
  const deps = [...new Set(rows.map((r) => r.dependency))];
  const steps = [...new Set(rows.map((r) => r.step))];
  const cell = (dep: string, step: string) =>
    rows
      .filter((r) => r.dependency === dep && r.step === step)
      .map((r) => `${r.ok ? "✓" : "✗"}${r.fault}`)
      .join(" ");
  const width = Math.max(...steps.map((s) => s.length));
  console.log(`\n${"step".padEnd(width)} | ${deps.join(" | ")}`);
  for (const step of steps) console.log(`${step.padEnd(width)} | ${deps.map((d) => cell(d, step) || "-").join(" | ")}`);
}
