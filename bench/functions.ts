import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { INGRESS_BUNDLING, LAMBDA_BUNDLING, WEB_BUNDLING, type LambdaBundling } from "../infra/bundling";
import { DEFAULT_MEMORY_SIZE_MB, PROJECT_ROOT } from "../infra/constructs/app-function";
import { AsShippedUnavailableError, bundleAsShipped } from "./baseline/as-shipped";
import { bundleLambdas, type BundleResult } from "./bundle";
import type { ColdCall, ColdResult, ColdTarget } from "./cold";
import { ratio } from "./stats";

/**
 * Every Lambda of the stack (a folder under lambdas/ with a handler.ts: infra/stack.ts makes one AppFunction per
 * folder), bundled as the stack bundles it, and cold-started in fresh processes beside two references:
 * - `baseline`: a bare handler (bench/baseline/bare.ts) with the same options: what any bundle costs at least;
 * - `allInOne`: one bundle of every step handler, so every port (bench/baseline/all-in-one.ts), from today's sources;
 * - `asShipped`: AwaitApproval built from the commit before per-Lambda wiring (bench/baseline/as-shipped.ts), the
 *   2 MiB step bundle every step shipped then. The step goals compare each step with it (docs/bench.md).
 */
export const FUNCTIONS_DIR = join(PROJECT_ROOT, "lambdas");

export function lambdaFunctions(): string[] {
  return readdirSync(FUNCTIONS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(FUNCTIONS_DIR, d.name, "handler.ts")))
    .map((d) => d.name)
    .sort();
}

/** The bundling infra/stack.ts gives each function (the default for all but the two HTTP ones). */
export function bundlingOf(fn: string): LambdaBundling {
  return fn === "ingress" ? INGRESS_BUNDLING : fn === "web" ? WEB_BUNDLING : LAMBDA_BUNDLING;
}

/** How the cold child calls each function without AWS (bench/cold-child.mjs). */
export function coldCallOf(fn: string): ColdCall {
  if (fn === "ingress") return "slack";
  if (fn === "web" || fn === "freee-mcp") return "healthz";
  // The daily refresh scans the table at once: any call reaches DynamoDB.
  if (fn === "refresh-freee-tokens") return "import";
  return "step";
}

/** Settings as plain values (no secret ARN, so nothing is fetched): enough for the wiring a cold call builds. */
export function coldEnvOf(fn: string, common: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { ...common, TABLE_NAME: "bench", TOKEN_KMS_KEY_ID: "alias/bench-tokens", KMS_ENDPOINT: "http://127.0.0.1:9" };
  if (fn === "freee-mcp") {
    Object.assign(env, { MCP_BEARER_SECRET: "bench-mcp-bearer-secret-0123456789abcdef", FREEE_CLIENT_ID: "bench", FREEE_CLIENT_SECRET: "bench" });
  }
  if (fn === "web") {
    Object.assign(env, { SLACK_CLIENT_ID: "111.222", SLACK_CLIENT_SECRET: "client-secret", SLACK_STATE_SECRET: "state-secret-0123456789", FREEE_CLIENT_ID: "bench", FREEE_CLIENT_SECRET: "bench", FREEE_STATE_SECRET: "freee-state-secret-0123456789" });
  }
  return env;
}

export const BARE_ENTRY = join(PROJECT_ROOT, "bench", "baseline", "bare.ts");
export const ALL_IN_ONE_ENTRY = join(PROJECT_ROOT, "bench", "baseline", "all-in-one.ts");

export interface FunctionResult {
  bundleBytes: number;
  gzipBytes: number;
  /** Import and the one call (or import alone where `call` is `import`), in the child, median. */
  coldImportMsMedian: number;
  /** The module import alone, median. */
  importOnlyMsMedian: number;
  /** The child process from spawn to exit, seen from the parent, median (node's own start included). */
  coldProcessMsMedian: number;
  call: ColdCall;
  memoryMb: number;
  /** This bundle / the all-in-one step bundle, and the same for its cold import (the goals: ≤ 1 MiB, ≤ 0.5×). */
  bundleRatioToAllInOne: number;
  coldRatioToAllInOne: number;
  /** The same against the as-shipped 2 MiB step bundle, when this clone could build it. */
  bundleRatioToAsShipped?: number;
  coldRatioToAsShipped?: number;
  topInputs: BundleResult["topInputs"];
}

export interface FunctionBundles {
  bundles: Record<string, BundleResult>;
  names: string[];
  /** Why the as-shipped reference is missing (a shallow clone), when it is. */
  asShippedUnavailable?: string;
}

/**
 * Bundles every function and the two references: one esbuild run per bundling (bench/bundle.ts bundleLambdas),
 * each function still its own bundle.
 */
export async function bundleFunctions(workDir: string, names: string[] = lambdaFunctions()): Promise<FunctionBundles> {
  const groups = new Map<LambdaBundling, Record<string, string>>();
  const add = (name: string, entry: string, bundling: LambdaBundling) => groups.set(bundling, { ...groups.get(bundling), [name]: entry });
  for (const fn of names) add(fn, join(FUNCTIONS_DIR, fn, "handler.ts"), bundlingOf(fn));
  add("baseline", BARE_ENTRY, LAMBDA_BUNDLING);
  add("allInOne", ALL_IN_ONE_ENTRY, LAMBDA_BUNDLING);
  const dir = join(workDir, "functions");
  mkdirSync(dir, { recursive: true });
  const bundles: Record<string, BundleResult> = {};
  for (const [bundling, entries] of groups) Object.assign(bundles, await bundleLambdas(entries, dir, bundling));
  try {
    bundles.asShipped = await bundleAsShipped(workDir);
  } catch (err) {
    if (!(err instanceof AsShippedUnavailableError)) throw err;
    return { bundles, names, asShippedUnavailable: err.message };
  }
  return { bundles, names };
}

/** The cold targets of every function and the two references (the ingress's is the bench's `ours`, measured once). */
export function functionColdTargets(b: FunctionBundles, common: Record<string, string>): ColdTarget[] {
  return [
    ...b.names.filter((fn) => fn !== "ingress").map((fn): ColdTarget => ({ name: `fn:${fn}`, file: b.bundles[fn]!.file, env: coldEnvOf(fn, common), call: coldCallOf(fn) })),
    { name: "fn:baseline", file: b.bundles.baseline!.file, env: {}, call: "bare" },
    { name: "fn:allInOne", file: b.bundles.allInOne!.file, env: coldEnvOf("allInOne", common), call: "step" },
    ...(b.bundles.asShipped === undefined ? [] : [{ name: "fn:asShipped", file: b.bundles.asShipped.file, env: coldEnvOf("asShipped", common), call: "step" as const }]),
  ];
}

/** `functions` of the JSON: each function, `baseline`, `allInOne` and `asShipped`, from this run's bundles and cold starts. */
export function functionResults(b: FunctionBundles, cold: Record<string, ColdResult>, ingressColdName: string): Record<string, FunctionResult> {
  const coldOf = (name: string) => (name === "ingress" ? cold[ingressColdName] : cold[`fn:${name}`]);
  const all = b.bundles.allInOne!;
  const allCold = coldOf("allInOne")!;
  const shipped = b.bundles.asShipped;
  const shippedCold = shipped === undefined ? undefined : coldOf("asShipped");
  const out: Record<string, FunctionResult> = {};
  for (const name of [...b.names, "baseline", "allInOne", ...(shipped === undefined ? [] : ["asShipped"])]) {
    const bundle = b.bundles[name]!;
    const c = coldOf(name);
    if (c === undefined) throw new Error(`bench: no cold start of ${name}`);
    const call: ColdCall = name === "baseline" ? "bare" : name === "allInOne" || name === "asShipped" ? "step" : coldCallOf(name);
    out[name] = {
      bundleBytes: bundle.bundleBytes,
      gzipBytes: bundle.gzipBytes,
      coldImportMsMedian: c.firstResponseMsMedian,
      importOnlyMsMedian: c.importMsMedian,
      coldProcessMsMedian: c.processMsMedian,
      call,
      memoryMb: DEFAULT_MEMORY_SIZE_MB,
      bundleRatioToAllInOne: ratio(bundle.bundleBytes, all.bundleBytes),
      coldRatioToAllInOne: ratio(c.firstResponseMsMedian, allCold.firstResponseMsMedian),
      ...(shipped === undefined || shippedCold === undefined
        ? {}
        : { bundleRatioToAsShipped: ratio(bundle.bundleBytes, shipped.bundleBytes), coldRatioToAsShipped: ratio(c.firstResponseMsMedian, shippedCold.firstResponseMsMedian) }),
      topInputs: bundle.topInputs.slice(0, 5),
    };
  }
  return out;
}

/** The step Lambdas (what the state machines invoke, and the reconciler's), whose goals are ≤ 1 MiB and ≤ 0.5× all-in-one. */
export function isStepFunction(fn: string): boolean {
  return fn !== "allInOne" && fn !== "asShipped" && fn !== "baseline" && coldCallOf(fn) === "step";
}
