/**
 * `npm run fuzz [-- --seeds N]`: the randomized tests on N fresh seeds (default 20), outside `npm test`, which
 * replays only each test's fixed list. A failing seed is printed by the failing test (FUZZ_SEEDS=<seed> replays
 * it); add it to that test's list together with the fix.
 */
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { parseArgs } from "node:util";
import { RANDOMIZED_TESTS } from "../test/support/seeds";
import { runCli, UsageError } from "./cli";

function seedCount(raw: string | undefined): number {
  if (raw === undefined) return 20;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 10_000) throw new UsageError(`--seeds must be a whole number from 1 to 10000, got ${JSON.stringify(raw)}`, "e.g. npm run fuzz -- --seeds 200");
  return Number(raw);
}

await runCli("npm run fuzz", async () => {
  const { values } = parseArgs({ options: { seeds: { type: "string" } }, strict: true, allowPositionals: false });
  const count = seedCount(values.seeds);
  const seeds = Array.from({ length: count }, () => randomInt(0, 2 ** 31));
  process.stdout.write(`npm run fuzz: ${count} seeds: ${seeds.join(",")}\n`);
  const run = spawnSync("npx", ["vitest", "run", ...RANDOMIZED_TESTS], { stdio: "inherit", env: { ...process.env, FUZZ_SEEDS: seeds.join(",") } });
  process.exit(run.status ?? 1);
});
