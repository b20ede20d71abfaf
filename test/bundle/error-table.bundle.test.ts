import { build } from "esbuild";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { esbuildOptions, LAMBDA_BUNDLING } from "../../infra/bundling";
import { PROJECT_ROOT } from "../../infra/constructs/app-function";
import { SlackMessages } from "../../lib/core/messages/ja";
import { ev } from "../../dev/fakes/anthropic";
import { errorReply, messageReply } from "../../dev/fakes/anthropic";
import { path, retriesOf, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { bundleBytesOf, bundledBytes, bundledInputs, bundleSteps, loadBundledSteps, STEP_FUNCTION_NAMES, type BundledStep } from "../support/step-bundles";
import { approveTask, expectPipelineFailure, l1Ok, runExecution, slackTexts } from "../steps/fixtures";
import type { StepFunctionName } from "../../infra/state-machines/functions";

/**
 * Test what ships: the step Lambdas are bundled with the stack's own options
 * (infra/bundling.ts) and run as the Task resources of the synthesized state machines. Step Functions matches
 * `ErrorEquals` against the name the bundle throws, so every Retry / Catch row is proven here on the bundles.
 */
// Under node_modules, so vitest leaves the bundles to Node's own loader, as the Lambda runtime loads them.
mkdirSync(join(PROJECT_ROOT, "node_modules", ".cache"), { recursive: true });
const outDir = mkdtempSync(join(PROJECT_ROOT, "node_modules", ".cache", "step-bundles-"));
let bundles: Record<StepFunctionName, BundledStep>;
let h: PipelineHarness;
let mcpBundleBytes: number;

/** Every step Lambda and the freee MCP Lambda ship at most this (docs/architecture.md, limits). */
const BUNDLE_LIMIT_BYTES = 1024 * 1024;

/** The MCP Lambda is an HTTP entry point, not a Task resource: built beside the steps for its size only. */
async function mcpBundleSize(): Promise<number> {
  const built = await build({
    ...esbuildOptions(LAMBDA_BUNDLING),
    entryPoints: [join(PROJECT_ROOT, "lambdas", "freee-mcp", "handler.ts")],
    outfile: join(outDir, "freee-mcp", "index.mjs"),
    metafile: true,
  });
  return bundleBytesOf(built.metafile);
}

// A budget for a loaded machine, not a timing check: building and importing the 15 bundles takes ~25 s alone on
// 2 cores and took over 120 s beside three other suites.
beforeAll(async () => {
  const [files, mcpBytes] = await Promise.all([bundleSteps(outDir), mcpBundleSize()]);
  mcpBundleBytes = mcpBytes;
  bundles = await loadBundledSteps(files);
  h = await startPipelineHarness({ bundles });
}, 360_000);
afterAll(async () => {
  await h?.close();
  rmSync(outDir, { recursive: true, force: true });
});

describe("error names survive the bundler", () => {
  it("every taxonomy class, bundled with the stack's options and its class renamed, keeps its name on the instance", async () => {
    const file = join(outDir, "taxonomy.mjs");
    await build({
      ...esbuildOptions(LAMBDA_BUNDLING),
      stdin: { contents: `export * from ${JSON.stringify(join(PROJECT_ROOT, "lib/core/errors/taxonomy.ts"))};`, resolveDir: PROJECT_ROOT, loader: "ts" },
      outfile: file,
    });
    const taxonomy = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const AppError = taxonomy.AppError as new (...a: unknown[]) => Error;
    const classes = Object.entries(taxonomy).filter(
      ([, v]) => typeof v === "function" && (v as { prototype?: unknown }).prototype instanceof AppError,
    ) as [string, new (m: string, o: object) => Error][];
    expect(classes.length).toBeGreaterThanOrEqual(20);
    for (const [exportName, Class] of classes) {
      const err = new Class("x", { limit: "reruns", reason: "terminated" });
      expect({ exportName, name: err.name }).toEqual({ exportName, name: exportName });
    }
    // The bundles keep no function names: this proves the names above come from the literals, not the classes.
    expect(classes.filter(([exportName, Class]) => Class.name !== exportName).length).toBeGreaterThan(0);
  });

  it.each(STEP_FUNCTION_NAMES)("the %s bundle throws BadRequestError, by that name, for an event that is not its input", async (name) => {
    const thrown = await bundles[name].handler({ not: "an input" }).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown?.name).toBe("BadRequestError");
  });
});

describe("each step bundle and the MCP bundle is at most 1 MiB", () => {
  it.each(STEP_FUNCTION_NAMES)("%s", (name) => {
    const bytes = bundledBytes.get(name);
    expect(bytes, `${name}: built`).toBeGreaterThan(0);
    expect(bytes, `${name}: bundle bytes`).toBeLessThanOrEqual(BUNDLE_LIMIT_BYTES);
  });
  it("freee-mcp", () => {
    expect(mcpBundleBytes).toBeLessThanOrEqual(BUNDLE_LIMIT_BYTES);
  });
});

describe("each step bundle holds the clients its step uses, and no other", () => {
  // The clients that make a bundle heavy (the Anthropic SDK, the freee client with its schemas), by the port
  // that needs them: a step that does not use a port must not ship its client.
  const CLIENT_OF_PORT = { layers: "lib/steps/anthropic-layers.ts", agent: "wiring/agent-runner.ts", freee: "lib/freee/client.ts" } as const;
  it.each(STEP_FUNCTION_NAMES)("%s", async (name) => {
    const { step } = (await import(`../../lambdas/${name}/handler.ts`)) as { step: { needs: Record<string, boolean | undefined> } };
    const inputs = bundledInputs.get(name)!;
    for (const [port, file] of Object.entries(CLIENT_OF_PORT)) expect({ port, shipped: inputs.has(file) }).toEqual({ port, shipped: step.needs[port] === true });
    expect(inputs.has("lib/model/anthropic-client.ts"), "the Anthropic client only where L1–L4 run").toBe(step.needs.layers === true || step.needs.agent === true);
  });
});

describe("every Retry / Catch row class on the bundled handlers in the synthesized state machines", () => {
  const l1Failure = (errorName: string, retries: number) => ({ state: "AnalyzeTask", retries, errorName, layer: "L1" as const, message: SlackMessages.l1Failed });

  it("transient (5xx): retried 3 times with backoff, then caught", async () => {
    const err500 = () => errorReply(500, "api_error", "internal error");
    h.anthropic.enqueue(err500(), err500(), err500(), err500());
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, l1Failure("UpstreamServerError", 3));
  });

  it("timeout: retried 2 times, then caught", async () => {
    const slow = () => ({ ...l1Ok(), delayMs: 1_000 });
    h.anthropic.enqueue(slow(), slow(), slow());
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, l1Failure("UpstreamTimeoutError", 2));
  });

  it("silent failure (200 OK, empty): retried once, then caught", async () => {
    h.anthropic.enqueue(messageReply({ texts: [] }), messageReply({ texts: ["  "] }));
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, l1Failure("EmptyResponseError", 1));
  });

  it("malformed (JSON does not parse): retried once, then caught", async () => {
    h.anthropic.enqueue(messageReply('{"title": "山田'), messageReply('{"title": "山田'));
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, l1Failure("MalformedOutputError", 1));
  });

  it("refused (stop_reason refusal): caught without retry", async () => {
    h.anthropic.enqueue(messageReply({ texts: ["I can't help with that."], stopReason: "refusal", stopDetails: { type: "refusal" } }));
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, l1Failure("RefusedResponseError", 0));
  });

  async function untilRun() {
    const { execution, taskId } = await approveTask(h);
    expect(execution.status).toBe("SUCCEEDED");
    return { taskId, run: await runExecution(h, taskId) };
  }

  async function expectRunFailure(taskId: string, run: Awaited<ReturnType<typeof untilRun>>["run"], status: string, errorName: string, message: string) {
    await run.done;
    expect(run.status).toBe("FAILED");
    expect(run.error).toBe(errorName);
    expect(path(run)).toContain("RecordRunFailure");
    const history = await h.store.loadHistory(taskId);
    expect(history.executions[0]).toMatchObject({ status, errorName });
    expect(history.task.failure).toMatchObject({ layer: "L4", errorName });
    expect(history.audit.filter((a) => a.action === "error.L4").map((a) => a.errorType)).toEqual([errorName]);
    expect(slackTexts(h).some((t) => t.includes(message))).toBe(true);
  }

  it("auth (the MCP server refuses the session's credential): caught without retry, the freee connection message", async () => {
    h.agents.scriptNextSession({ polls: [{ events: [ev.running(), ev.sessionError("mcp_authentication_failed_error", "terminal")] }] });
    const { taskId, run } = await untilRun();
    await expectRunFailure(taskId, run, "failed", "AuthError", SlackMessages.freeeConnectionFailed);
    expect(retriesOf(run, "PollSession")).toBe(0);
  });

  it("run timeout (360 s of polling): RecordRunFailure tells RunTimeoutError apart → timed_out", async () => {
    h.agents.scriptNextSession({ polls: [{ events: [ev.running()] }] });
    const { taskId, run } = await untilRun();
    await expectRunFailure(taskId, run, "timed_out", "RunTimeoutError", SlackMessages.l4TimedOut);
    expect(path(run).at(-1)).toBe("RunTimedOut");
  }, 60_000);

  it("the Lambda's own timeout (Sandbox.Timedout) and Lambda.Unknown are transient: retried, and the run completes", async () => {
    const killed = (name: string, message: string) => Object.assign(new Error(message), { name });
    h.failInvocation("poll-session", killed("Sandbox.Timedout", "Task timed out after 402.00 seconds"), killed("Lambda.Unknown", "The function returned without an error type"));
    const { taskId, run } = await untilRun();
    await run.done;
    expect(run.status).toBe("SUCCEEDED");
    expect(retriesOf(run, "PollSession")).toBe(2);
    expect((await h.store.loadHistory(taskId)).executions[0]?.status).toBe("completed");
  });
});
