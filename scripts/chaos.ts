import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import "../dev/local/promise-with-resolvers";
import { CELLS, cellName } from "../dev/chaos/matrix";
import { runCells, type CellResult } from "../dev/chaos/run";
import { runCli, UsageError } from "./cli";

/**
 * `npm run chaos [-- --only <text>] [--concurrency <n>]`: the fault matrix of issue 14. Each cell runs one whole
 * local task with one fault and checks the invariants (dev/chaos/invariants.ts); the table goes to stdout and
 * the cells to chaos/results.json. Exit code 1 when a cell is broken.
 */
await runCli("npm run chaos", async () => {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const at = args.indexOf(`--${name}`);
    return at < 0 ? undefined : args[at + 1];
  };
  process.env.LOG_LEVEL ??= "SILENT";
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const only = arg("only");
  const cells = CELLS.filter((c) => only === undefined || cellName(c).toLowerCase().includes(only.toLowerCase()));
  const concurrency = Number(arg("concurrency") ?? Math.min(2, availableParallelism()));
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency takes a positive integer (got ${JSON.stringify(arg("concurrency"))})`, "npm run chaos -- --concurrency 2");
  if (cells.length === 0) throw new UsageError(`no cell matches --only ${JSON.stringify(only)}`, `use a dependency, step or fault from the table, e.g. --only freee (${CELLS.length} cells)`);

  console.log(`chaos: ${cells.length} cells, ${concurrency} at a time`);
  const started = Date.now();
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
