import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeSlack } from "../dev/fakes/slack/fake-slack";
import { TEST_SIGNING_SECRET } from "../test/support/slack-signing";
import { INGRESS_BUNDLING, PLAIN_BUNDLING } from "../infra/bundling";
import { bundleLambda, type BundleResult } from "./bundle";
import { measureCold, type ColdResult } from "./cold";
import { startCountingDynamo } from "./dynamo";
import { layerCaches, measurePipeline, type LayerCache, type PipelineResult } from "./pipeline";
import { startSfnServer } from "./sfn-server";
import { ratio } from "./stats";
import { EXECUTION_RUN_ARN, measureWarm, TASK_PIPELINE_ARN, type LatencyStats } from "./warm";

export const ROOT = resolve(fileURLToPath(import.meta.url), "..", "..");
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
  goals: Record<string, { goal: string; ratio: number; met: boolean }>;
  perTask: PipelineResult["perTask"];
  perPoll: PipelineResult["perPoll"];
  /** Per layer: estimated static prefix vs the model's minimum cacheable prompt, and whether a breakpoint is placed. */
  promptCache: Record<"L1" | "L2" | "L3", LayerCache>;
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
        ],
        options.coldRuns,
        options.coldNodeArgs,
      ),
    );

    // Inside the test suite: its DynamoDB Local; `npm run bench`: one of its own.
    const dynamo = await startCountingDynamo(process.env.TEST_DYNAMODB_ENDPOINT);
    const warm = await timed("warm", () => measureWarm({ ours: ours.file, baseline: base.file, requests: options.requests, warmup: options.warmup, dynamo, sfn, slack }));
    await dynamo.close();

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
      // Issue 17's goals, all against the naive baseline, all from this one run.
      goals: {
        bundle: { goal: "<= 0.35", ratio: ratios.bundleBytes, met: ratios.bundleBytes <= 0.35 },
        coldFirstResponse: { goal: "<= 0.6", ratio: ratios.coldFirstResponseMsMedian, met: ratios.coldFirstResponseMsMedian <= 0.6 },
        warmP99Message: { goal: "<= 1.2", ratio: ratios.warmP99MsMessage, met: ratios.warmP99MsMessage <= 1.2 },
        warmP99Click: { goal: "<= 2", ratio: ratios.warmP99MsClick, met: ratios.warmP99MsClick <= 2 },
      },
      perTask: pipeline.perTask,
      perPoll: pipeline.perPoll,
      promptCache: layerCaches(),
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
