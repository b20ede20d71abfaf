import { afterEach, describe, expect, it, vi } from "vitest";
import { METRICS_NAMESPACE, MetricNames, PipelineMetrics } from "../../../lib/core/observability/metrics";

// The setup turns EMF output off for the other suites; these tests read it.
process.env.POWERTOOLS_METRICS_DISABLED = "false";

function captureEmf(): { blobs: () => Array<Record<string, unknown>>; restore: () => void } {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((c: string | Uint8Array) => (lines.push(String(c)), true));
  return {
    blobs: () => lines.flatMap((l) => l.split("\n")).filter((l) => l.includes("_aws")).map((l) => JSON.parse(l) as Record<string, unknown>),
    restore: () => spy.mockRestore(),
  };
}

describe("metrics (EMF via Powertools)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("a silent failure counts as a failure of its layer and class AND as its own SilentFailures class", () => {
    const emf = captureEmf();
    new PipelineMetrics().failure("L2", "EmptyResponseError");
    emf.restore();
    const blobs = emf.blobs();
    const failures = blobs.find((b) => MetricNames.failures in b)!;
    expect(failures).toMatchObject({ Layer: "L2", ErrorClass: "EmptyResponseError", [MetricNames.failures]: 1 });
    const silent = blobs.find((b) => MetricNames.silentFailures in b)!;
    expect(silent).toMatchObject({ ErrorClass: "EmptyResponseError" });
    const meta = (failures._aws as { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][] }> }).CloudWatchMetrics[0]!;
    expect(meta.Namespace).toBe(METRICS_NAMESPACE);
    expect(meta.Dimensions[0]).toEqual(expect.arrayContaining(["Layer", "ErrorClass"]));
  });

  it("a non-silent failure is not a SilentFailure", () => {
    const emf = captureEmf();
    new PipelineMetrics().failure("L1", "MalformedOutputError");
    emf.restore();
    expect(emf.blobs().some((b) => MetricNames.silentFailures in b)).toBe(false);
  });

  it("execution duration and tokens", () => {
    const emf = captureEmf();
    new PipelineMetrics().executionFinished(42, { inputTokens: 100, outputTokens: 20, cacheReadInputTokens: 80, cacheCreationInputTokens: 0 });
    emf.restore();
    const blobs = emf.blobs();
    expect(blobs.find((b) => MetricNames.executionDuration in b)).toMatchObject({ [MetricNames.executionDuration]: 42 });
    expect(blobs.find((b) => MetricNames.inputTokens in b)).toMatchObject({ Layer: "L4", [MetricNames.inputTokens]: 100 });
  });

  it("outcomes, retries, regenerations, reruns and cancels each publish a count", () => {
    const emf = captureEmf();
    const m = new PipelineMetrics();
    m.taskEnded("completed");
    m.retry("analyze-task", "RateLimitedError");
    m.regeneration("prompt");
    m.rerun();
    m.cancel();
    emf.restore();
    const names = emf.blobs().flatMap((b) => Object.keys(b));
    for (const n of [MetricNames.tasksEnded, MetricNames.retries, MetricNames.regenerations, MetricNames.reruns, MetricNames.cancels]) expect(names).toContain(n);
  });
});
