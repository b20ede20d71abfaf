import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { MetricNames } from "../../lib/core/observability/metrics";
import { messageReply } from "../../dev/fakes/anthropic";
import { startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { decide, l1Ok, l2Ok, runApprovedTask } from "./fixtures";
import { ev } from "../../dev/fakes/anthropic";

// The setup turns EMF output off for the other suites; these tests read it.
process.env.POWERTOOLS_METRICS_DISABLED = "false";

// The pipeline's steps publish the operator's counts as EMF lines on stdout (Powertools Metrics).
let h: PipelineHarness;
let lines: string[];
beforeAll(async () => {
  h = await startPipelineHarness();
});
afterAll(async () => h.close());
afterEach(() => vi.restoreAllMocks());

function captureEmf(): void {
  lines = [];
  const original = process.stdout.write.bind(process.stdout);
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    if (text.includes('"_aws"')) {
      lines.push(...text.split("\n").filter((l) => l.includes('"_aws"')));
      return true;
    }
    return (original as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  });
}
const blobs = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
const find = (name: string, dims: Record<string, string> = {}) =>
  blobs().filter((b) => name in b && Object.entries(dims).every(([k, v]) => b[k] === v));

it("a completed task counts as completed, with L1–L4 tokens and the run's duration", async () => {
  captureEmf();
  const { taskId, run } = await runApprovedTask(h);
  expect(find(MetricNames.tasksEnded, { Outcome: "completed" })).toHaveLength(1);
  for (const layer of ["L1", "L2", "L3", "L4"]) expect(find(MetricNames.inputTokens, { Layer: layer }).length).toBeGreaterThan(0);
  expect(find(MetricNames.executionDuration)).toHaveLength(1);
  expect(find(MetricNames.failures)).toHaveLength(0);
});

it("an empty L2 reply: two retryable attempts (one retry), then a failure of L2 by its class and a silent failure", async () => {
  captureEmf();
  h.anthropic.enqueue(l1Ok(), messageReply({ texts: ["  "] }), messageReply({ texts: [] }));
  const { execution } = h.startTask();
  await execution.done;
  expect(find(MetricNames.retries, { Step: "generate-prompt", ErrorClass: "EmptyResponseError" }).length).toBe(2);
  expect(find(MetricNames.failures, { Layer: "L2", ErrorClass: "EmptyResponseError" })).toHaveLength(1);
  expect(find(MetricNames.silentFailures, { ErrorClass: "EmptyResponseError" })).toHaveLength(1);
  expect(find(MetricNames.tasksEnded, { Outcome: "failed" })).toHaveLength(1);
});

it("a rejection counts a regeneration", async () => {
  captureEmf();
  h.anthropic.enqueue(l1Ok(), l2Ok(), l2Ok("方針 v2"));
  const { taskId } = h.startTask();
  await decide(h, taskId, "prompt", 1, { reject: "金額が違います" });
  await h.local.waitFor(() => find(MetricNames.regenerations, { Kind: "prompt" }).length > 0 || undefined, 10_000, "a regeneration metric");
  expect(find(MetricNames.regenerations, { Kind: "prompt" })).toHaveLength(1);
  // The metric comes before L2 is asked for v2: end only once v2 took its reply, or the next test's L1 might.
  await h.local.waitFor(() => h.local.pendingTokens().find((p) => p.executionName === taskId && (p.payload as { version?: number }).version === 2), 10_000, "prompt v2 approval");
});

it("a run whose agent ends its turn with a question counts as a failure of L4 and a silent failure (IncompleteRunError), not a completion", async () => {
  captureEmf();
  h.agents.scriptNextSession({ polls: [{ events: [ev.running()] }, { events: [ev.agentMessage("どの従業員ですか？"), ev.idle("end_turn")] }] });
  const { taskId, run } = await runApprovedTask(h);
  expect(run.error).toBe("IncompleteRunError");
  expect(find(MetricNames.failures, { Layer: "L4", ErrorClass: "IncompleteRunError" })).toHaveLength(1);
  expect(find(MetricNames.silentFailures, { ErrorClass: "IncompleteRunError" })).toHaveLength(1);
  expect(find(MetricNames.tasksEnded, { Outcome: "completed" })).toHaveLength(0);
  expect(find(MetricNames.tasksEnded, { Outcome: "failed" })).toHaveLength(1);
});
