import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { BenchOptions } from "./harness";
import { runCli, UsageError } from "../scripts/cli";

// `npm run bench [-- --out file --requests N --cold-runs N --quick --source-maps]`: bundle, cold, warm, pipeline; table + JSON.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
// The pipeline's EMF metric lines are CloudWatch's input, not the bench's output.
process.env.POWERTOOLS_METRICS_DISABLED ??= "true";
await runCli("npm run bench", async () => {
  const { values } = parseArgs({
    options: {
      out: { type: "string", default: "bench/results.json" },
      requests: { type: "string" },
      "cold-runs": { type: "string" },
      quick: { type: "boolean", default: false },
      "source-maps": { type: "boolean", default: false },
    },
  });
  const quick = values.quick === true;
  const options: BenchOptions = {
    out: resolve(values.out ?? "bench/results.json"),
    requests: Number(values.requests ?? (quick ? 50 : 1000)),
    coldRuns: Number(values["cold-runs"] ?? (quick ? 3 : 11)),
    warmup: quick ? 5 : 20,
    coldNodeArgs: values["source-maps"] === true ? ["--enable-source-maps"] : [],
    workDir: mkdtempSync(join(tmpdir(), "bench-")),
  };
  if (!Number.isInteger(options.requests) || options.requests < 1 || !Number.isInteger(options.coldRuns) || options.coldRuns < 1) {
    rmSync(options.workDir, { recursive: true, force: true });
    throw new UsageError("--requests and --cold-runs take positive integers", "npm run bench -- --requests 1000 --cold-runs 11 (or --quick)");
  }
  mkdirSync(resolve(options.out, ".."), { recursive: true });
  try {
    // The harness (bundles, stacks) loads after the flags are checked: a bad flag answers at once.
    const [{ runBench }, { printReport }] = await Promise.all([import("./harness"), import("./report")]);
    const results = await runBench(options, (line) => process.stderr.write(`${line}\n`));
    printReport(results, (line) => process.stdout.write(`${line}\n`), { quick });
    process.stdout.write(`\nresults written to ${options.out}\n`);
  } finally {
    rmSync(options.workDir, { recursive: true, force: true });
  }
});
// Keep-alive sockets of the SDK clients imported from the bundles would hold the process open.
process.exit(0);
