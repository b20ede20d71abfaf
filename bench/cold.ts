import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { slackSignatureHeaders } from "../dev/local/slack-signature";
import { median, round } from "./stats";

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL("./cold-child.mjs", import.meta.url));
/** The request each cold child answers: Slack's url_verification, which the ingress answers without upstream calls. */
const COLD_BODY = JSON.stringify({ token: "legacy", challenge: "bench-challenge", type: "url_verification" });

export interface ColdSample {
  importMs: number;
  firstResponseMs: number;
}

/** How the child calls the handler once imported (bench/cold-child.mjs): none of these needs AWS. */
export type ColdCall = "slack" | "healthz" | "step" | "bare" | "import";

export interface ColdTarget {
  name: string;
  file: string;
  env: Record<string, string>;
  /** The Slack signing secret of a `slack` call. */
  signingSecret?: string;
  /** @default "slack" */
  call?: ColdCall;
}

export interface ColdResult {
  runs: number;
  importMsMedian: number;
  firstResponseMsMedian: number;
  importMsMin: number;
  importMsMax: number;
  /** The whole child process, spawn to exit, seen from the parent: with node's own start (~75 ms bare). */
  processMsMedian: number;
}

/**
 * Cold import: `runs` fresh `node` processes per target, run one at a time and interleaved (ours, baseline,
 * ours, ...) so machine noise hits both alike. Node runs without --enable-source-maps by default, as the ingress
 * Lambda does (app-function.ts `enableSourceMaps: false`) and as a straightforward baseline would; the
 * environment is the child's only (no inherited NODE_OPTIONS).
 */
export async function measureCold(targets: ColdTarget[], runs: number, nodeArgs: string[] = []): Promise<Record<string, ColdResult>> {
  const samples = new Map<string, Array<ColdSample & { processMs: number }>>(targets.map((t) => [t.name, []]));
  for (let i = 0; i < runs; i++) {
    for (const target of targets) {
      const call = target.call ?? "slack";
      // Signed here, through the repository's one signer: the child is plain node and imports only the bundle.
      const headers = call === "slack" ? JSON.stringify(slackSignatureHeaders(COLD_BODY, target.signingSecret ?? "")) : "{}";
      const started = performance.now();
      const { stdout } = await run(process.execPath, [...nodeArgs, CHILD, target.file, call, COLD_BODY, headers], {
        env: { PATH: process.env.PATH ?? "", AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", ...target.env },
        timeout: 30_000,
      });
      const processMs = performance.now() - started;
      const line = stdout.split("\n").find((l) => l.startsWith("BENCH_RESULT "));
      if (line === undefined) throw new Error(`bench: cold run of ${target.name} printed no result`);
      samples.get(target.name)!.push({ ...(JSON.parse(line.slice("BENCH_RESULT ".length)) as ColdSample), processMs });
    }
  }
  return Object.fromEntries(
    [...samples.entries()].map(([name, list]) => {
      const imports = list.map((s) => s.importMs);
      return [
        name,
        {
          runs: list.length,
          importMsMedian: round(median(imports)),
          firstResponseMsMedian: round(median(list.map((s) => s.firstResponseMs))),
          importMsMin: round(Math.min(...imports)),
          importMsMax: round(Math.max(...imports)),
          processMsMedian: round(median(list.map((s) => s.processMs))),
        },
      ];
    }),
  );
}
