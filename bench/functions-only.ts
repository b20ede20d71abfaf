import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { measureCold } from "./cold";
import { bundleFunctions, functionColdTargets, functionResults, lambdaFunctions } from "./functions";

// `npm run bench:functions [-- RUNS [fn ...]]`: only the bundles and cold starts of `npm run bench` (bench/functions.ts),
// RUNS fresh processes per target (default 11), every function or the named ones, beside the bare handler, the
// all-in-one and the as-shipped step: for measuring a change to a bundle without the warm, MCP and pipeline parts.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const [runsArg, ...named] = process.argv.slice(2);
const runs = Number(runsArg ?? 11);
if (!Number.isInteger(runs) || runs < 1) throw new Error("npm run bench:functions -- RUNS [fn ...]: RUNS is a positive integer");
const all = lambdaFunctions();
const unknown = named.filter((fn) => !all.includes(fn));
if (unknown.length > 0) throw new Error(`bench:functions: no function ${unknown.join(", ")} under lambdas/`);
const workDir = mkdtempSync(join(tmpdir(), "bench-fn-"));
try {
  // The ingress is the full bench's `ours` (its cold start is measured there): left out here.
  const bundles = await bundleFunctions(workDir, (named.length > 0 ? named : all).filter((fn) => fn !== "ingress"));
  const cold = await measureCold(functionColdTargets(bundles, { AWS_REGION: "us-east-1" }), runs);
  const results = functionResults(bundles, cold, "");
  const kib = (bytes: number) => (bytes / 1024).toFixed(1);
  for (const [name, f] of Object.entries(results)) {
    const shipped = f.coldRatioToAsShipped === undefined ? "" : `, ${f.coldRatioToAsShipped.toFixed(3)}x as shipped`;
    process.stdout.write(`${name.padEnd(24)} ${kib(f.bundleBytes).padStart(8)} KiB  cold ${f.coldImportMsMedian.toFixed(1).padStart(6)} ms (import ${f.importOnlyMsMedian.toFixed(1)})${shipped}\n`);
  }
  if (bundles.asShippedUnavailable !== undefined) process.stdout.write(`${bundles.asShippedUnavailable}\n`);
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
process.exit(0);
