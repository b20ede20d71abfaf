import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";
import { join } from "node:path";
import { startFakeSlack } from "../dev/fakes/slack/fake-slack";
import { TEST_SIGNING_SECRET } from "../test/support/slack-signing";
import { INGRESS_BUNDLING, PLAIN_BUNDLING } from "../infra/bundling";
import { PROJECT_ROOT } from "../infra/constructs/app-function";
import { bundleLambda, type BundleResult } from "./bundle";
import { l3Catalogue, type L3Catalogue } from "./catalogue";
import { measureCold, type ColdResult } from "./cold";
import { bundleFunctions, functionColdTargets, functionResults, isStepFunction, type FunctionResult } from "./functions";
import { modelCost, type CostResult } from "./cost";
import { startCountingDynamo } from "./dynamo";
import { measureMcp, type McpResult } from "./mcp";
import { layerCaches, measurePipeline, type LayerCache, type PipelineResult } from "./pipeline";
import { startSfnServer } from "./sfn-server";
import { ratio, round } from "./stats";
import { EXECUTION_RUN_ARN, measureWarm, TASK_PIPELINE_ARN, type LatencyStats } from "./warm";

/** The repository root (the same directory the stack bundles from). */
export const ROOT = PROJECT_ROOT;
export const OURS_ENTRY = join(ROOT, "lambdas", "ingress", "handler.ts");
export const BASELINE_ENTRY = join(ROOT, "bench", "baseline", "handler.ts");

export interface BenchOptions {
  out: string;
  requests: number;
  warmup: number;
  coldRuns: number;
  /** Node flags of the cold-start processes (default: none, as the ingress Lambda runs). */
  coldNodeArgs?: string[];
  workDir: string;
  /** The Lambdas (folders under lambdas/) whose bundle and cold start are measured; default every one. */
  functions?: string[];
  /** Timed MCP calls of each kind per side; default `requests`, at most 500 (p99 of 500 is the 495th). */
  mcpRequests?: number;
}

export interface SideResult {
  entry: string;
  bundleBytes: number;
  gzipBytes: number;
  sourceMapBytes: number;
  topInputs: BundleResult["topInputs"];
  coldImportMsMedian: number;
  coldFirstResponseMsMedian: number;
  cold: ColdResult;
  warmP50Ms: number;
  warmP99Ms: number;
  warm: { all: LatencyStats; message: LatencyStats; click: LatencyStats; clickDynamoWait?: LatencyStats; clickWithoutDynamoWait?: LatencyStats } & Record<string, unknown>;
}

/** ours / baseline for each figure (below 1: ours is smaller / faster). */
export interface Ratios {
  bundleBytes: number;
  gzipBytes: number;
  coldImportMsMedian: number;
  coldFirstResponseMsMedian: number;
  warmP50Ms: number;
  warmP99Ms: number;
  warmP99MsMessage: number;
  warmP99MsClick: number;
}

export interface BenchResults {
  generatedAt: string;
  machine: { nproc: number; cpuModel: string; memoryGiB: number; node: string; platform: string; arch: string };
  settings: { requests: number; warmup: number; coldRuns: number; coldNodeArgs: string[] };
  /** ackUpstreamCalls: upstream calls before the response, per kind of request (1 / 2 / 1 / 2 / ≤ 3). */
  ingress: SideResult & { ackUpstreamCalls: import("./warm").AckUpstreamCalls };
  baseline: SideResult;
  /** The baseline bundled with the ingress's aliases (Bolt's unused receivers out): for reference, not a goal. */
  baselineAliased: { bundleBytes: number; gzipBytes: number; coldImportMsMedian: number; coldFirstResponseMsMedian: number };
  ratios: Ratios;
  /**
   * Every Lambda's bundle and cold start (median of this run's fresh processes), with `baseline` (a bare handler)
   * and `allInOne` (one bundle of every step, so every port: a step bundle as it was when one wiring built every port).
   */
  functions: Record<string, FunctionResult>;
  /** Why `functions.asShipped` (and the goals against it) are missing: this clone lacks the reference commit. */
  asShippedUnavailable?: string;
  goals: Record<string, { goal: string; ratio: number; met: boolean }>;
  /** A read and a write tools/call through our MCP server against the naive forwarder (bench/mcp.ts). */
  mcp: McpResult;
  /** The modelled cost of one task, one agent run and the task's tokens, at bench/prices.ts's list prices. */
  cost: CostResult;
  perTask: PipelineResult["perTask"];
  perPoll: PipelineResult["perPoll"];
  /** Per layer: estimated static prefix vs the model's minimum cacheable prompt, and whether a breakpoint is placed. */
  promptCache: Record<"L1" | "L2" | "L3", LayerCache>;
  /** L3's tool catalogue in its cached prefix, and the task's L3 tokens (bench/catalogue.ts). */
  l3Catalogue: L3Catalogue;
  durationsMs: Record<string, number>;
}

/** The whole bench in one run: bundle both, cold-start both, warm-request both, run one task end to end. */
export async function runBench(options: BenchOptions, progress: (line: string) => void = () => {}): Promise<BenchResults> {
  const durations: Record<string, number> = {};
  const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    progress(`bench: ${name}...`);
    const value = await work();
    durations[name] = Date.now() - t0;
    return value;
  };

  const [ours, base, baseAliased] = await timed("bundle", () =>
    Promise.all([
      bundleLambda(OURS_ENTRY, dir(options.workDir, "ours"), INGRESS_BUNDLING),
      bundleLambda(BASELINE_ENTRY, dir(options.workDir, "baseline"), PLAIN_BUNDLING),
      bundleLambda(BASELINE_ENTRY, dir(options.workDir, "baseline-aliased"), INGRESS_BUNDLING),
    ]),
  );
  const fnBundles = await timed("bundleFunctions", () => bundleFunctions(options.workDir, options.functions));

  const slack = await startFakeSlack({ botTokens: ["xoxb-bench"] });
  const sfn = await startSfnServer();
  try {
    const common = { AWS_REGION: "us-east-1", TASK_PIPELINE_ARN, EXECUTION_RUN_ARN, SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET };
    const cold = await timed("cold", () =>
      measureCold(
        [
          {
            name: "ours",
            file: ours.file,
            signingSecret: TEST_SIGNING_SECRET,
            // As deployed: multi-workspace (install routes on), settings from the environment.
            // The KMS client is built at start as on AWS; a cold start never calls it.
            env: { ...common, TABLE_NAME: "bench", SLACK_CLIENT_ID: "111.222", SLACK_CLIENT_SECRET: "client-secret", SLACK_STATE_SECRET: "state-secret-0123456789", TOKEN_KMS_KEY_ID: "alias/bench-tokens", KMS_ENDPOINT: "http://127.0.0.1:9" },
          },
          // Bolt's App checks its token with auth.test when constructed: it gets the recording Slack server.
          { name: "baseline", file: base.file, signingSecret: TEST_SIGNING_SECRET, env: { ...common, SLACK_BOT_TOKEN: "xoxb-bench", SLACK_API_URL: slack.url } },
          { name: "baselineAliased", file: baseAliased.file, signingSecret: TEST_SIGNING_SECRET, env: { ...common, SLACK_BOT_TOKEN: "xoxb-bench", SLACK_API_URL: slack.url } },
          // Every other Lambda, the bare handler and the all-in-one step, in the same interleaved rounds.
          ...functionColdTargets(fnBundles, { AWS_REGION: "us-east-1" }),
        ],
        options.coldRuns,
        options.coldNodeArgs,
      ),
    );

    // Inside the test suite: its DynamoDB Local; `npm run bench`: one of its own.
    const dynamo = await startCountingDynamo(process.env.TEST_DYNAMODB_ENDPOINT);
    const warm = await timed("warm", () => measureWarm({ ours: ours.file, baseline: base.file, requests: options.requests, warmup: options.warmup, dynamo, sfn, slack }));
    // The same DynamoDB Local (a table of its own): another would be one more JVM start.
    const mcp = await timed("mcp", () => measureMcp({ requests: options.mcpRequests ?? Math.min(options.requests, 500), warmup: options.warmup, dynamo })).finally(() => dynamo.close());

    const pipeline = await timed("pipeline", async () => measurePipeline(await startCountingDynamo(process.env.TEST_DYNAMODB_ENDPOINT)));

    const side = (entry: string, bundle: BundleResult, c: ColdResult, w: SideResult["warm"]): SideResult => ({
      entry: entry.slice(ROOT.length + 1),
      bundleBytes: bundle.bundleBytes,
      gzipBytes: bundle.gzipBytes,
      sourceMapBytes: bundle.sourceMapBytes,
      topInputs: bundle.topInputs,
      coldImportMsMedian: c.importMsMedian,
      coldFirstResponseMsMedian: c.firstResponseMsMedian,
      cold: c,
      warmP50Ms: w.all.p50Ms,
      warmP99Ms: w.all.p99Ms,
      warm: w,
    });
    const ingress = { ...side(OURS_ENTRY, ours, cold.ours!, warm.ours), ackUpstreamCalls: warm.ackUpstreamCalls };
    const baseline = side(BASELINE_ENTRY, base, cold.baseline!, warm.baseline);
    const functions = functionResults(fnBundles, cold, "ours");
    const steps = Object.entries(functions).filter(([name]) => isStepFunction(name));
    const worstStepBundle = Math.max(...steps.map(([, f]) => f.bundleBytes));
    const worstStepCold = Math.max(...steps.map(([, f]) => f.coldRatioToAllInOne));
    // Against the 2 MiB step bundle as it shipped (when this clone holds its commit), the goals' own reference.
    const worstStepColdShipped = functions.asShipped !== undefined ? Math.max(...steps.map(([, f]) => f.coldRatioToAsShipped!)) : undefined;
    const mcpFn = functions["freee-mcp"];
    const ratios: Ratios = {
      bundleBytes: ratio(ingress.bundleBytes, baseline.bundleBytes),
      gzipBytes: ratio(ingress.gzipBytes, baseline.gzipBytes),
      coldImportMsMedian: ratio(ingress.coldImportMsMedian, baseline.coldImportMsMedian),
      coldFirstResponseMsMedian: ratio(ingress.coldFirstResponseMsMedian, baseline.coldFirstResponseMsMedian),
      warmP50Ms: ratio(ingress.warmP50Ms, baseline.warmP50Ms),
      warmP99Ms: ratio(ingress.warmP99Ms, baseline.warmP99Ms),
      warmP99MsMessage: ratio(warm.ours.message.p99Ms, warm.baseline.message.p99Ms),
      warmP99MsClick: ratio(warm.ours.click.p99Ms, warm.baseline.click.p99Ms),
    };
    const results: BenchResults = {
      generatedAt: new Date().toISOString(),
      machine: {
        nproc: availableParallelism(),
        cpuModel: cpus()[0]?.model ?? "unknown",
        memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
        node: process.version,
        platform: process.platform,
        arch: process.arch,
      },
      settings: { requests: options.requests, warmup: options.warmup, coldRuns: options.coldRuns, coldNodeArgs: options.coldNodeArgs ?? [] },
      ingress,
      baseline,
      baselineAliased: {
        bundleBytes: baseAliased.bundleBytes,
        gzipBytes: baseAliased.gzipBytes,
        coldImportMsMedian: cold.baselineAliased!.importMsMedian,
        coldFirstResponseMsMedian: cold.baselineAliased!.firstResponseMsMedian,
      },
      ratios,
      functions,
      ...(fnBundles.asShippedUnavailable === undefined ? {} : { asShippedUnavailable: fnBundles.asShippedUnavailable }),
      // The goals of docs/bench.md, all from this one run: the ingress against the naive baseline, the functions
      // against the all-in-one step bundle, the MCP server against the naive forwarder.
      goals: {
        bundle: { goal: "<= 0.35", ratio: ratios.bundleBytes, met: ratios.bundleBytes <= 0.35 },
        coldFirstResponse: { goal: "<= 0.6", ratio: ratios.coldFirstResponseMsMedian, met: ratios.coldFirstResponseMsMedian <= 0.6 },
        warmP99Message: { goal: "<= 1.2", ratio: ratios.warmP99MsMessage, met: ratios.warmP99MsMessage <= 1.2 },
        warmP99Click: { goal: "<= 2", ratio: ratios.warmP99MsClick, met: ratios.warmP99MsClick <= 2 },
        // Every step Lambda's bundle (MiB) and cold import against the all-in-one step, the worst of them.
        ...(steps.length === 0
          ? {}
          : {
              stepBundleMiB: { goal: "<= 1", ratio: round(worstStepBundle / 2 ** 20, 3), met: worstStepBundle <= 2 ** 20 },
              stepColdVsAllInOne: { goal: "<= 0.5", ratio: worstStepCold, met: worstStepCold <= 0.5 },
              ...(worstStepColdShipped === undefined ? {} : { stepColdVsAsShipped: { goal: "<= 0.5", ratio: worstStepColdShipped, met: worstStepColdShipped <= 0.5 } }),
            }),
        ...(mcpFn === undefined
          ? {}
          : {
              mcpBundleMiB: { goal: "<= 1", ratio: round(mcpFn.bundleBytes / 2 ** 20, 3), met: mcpFn.bundleBytes <= 2 ** 20 },
              mcpColdVsAllInOne: { goal: "<= 0.5", ratio: mcpFn.coldRatioToAllInOne, met: mcpFn.coldRatioToAllInOne <= 0.5 },
              ...(mcpFn.coldRatioToAsShipped === undefined ? {} : { mcpColdVsAsShipped: { goal: "<= 0.5", ratio: mcpFn.coldRatioToAsShipped, met: mcpFn.coldRatioToAsShipped <= 0.5 } }),
            }),
        mcpReadP99: { goal: "<= 1.5", ratio: mcp.read.p99Ratio, met: mcp.read.p99Ratio <= 1.5 },
        mcpWriteP99: { goal: "<= 1.5", ratio: mcp.write.p99Ratio, met: mcp.write.p99Ratio <= 1.5 },
      },
      mcp,
      cost: modelCost(pipeline),
      perTask: pipeline.perTask,
      perPoll: pipeline.perPoll,
      promptCache: layerCaches(),
      l3Catalogue: l3Catalogue(layerCaches().L3, pipeline.perTask.usageByLayer.L3!),
      durationsMs: durations,
    };
    writeFileSync(options.out, `${JSON.stringify(results, null, 2)}\n`);
    return results;
  } finally {
    await Promise.all([slack.close(), sfn.close()]);
  }
}

function dir(root: string, name: string): string {
  const path = join(root, name);
  mkdirSync(path, { recursive: true });
  return path;
}
