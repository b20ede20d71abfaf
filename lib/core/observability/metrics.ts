import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import type { TokenUsage } from "../domain/records";

import { APPROVALS_REFUSED_METRIC, METRICS_NAMESPACE, METRICS_SERVICE, SLACK_CALLBACKS_METRIC } from "./emf";

export { METRICS_NAMESPACE, METRICS_SERVICE } from "./emf";

export const MetricNames = {
  tasksEnded: "TasksEnded", // dimension Outcome
  failures: "Failures", // dimensions Layer, ErrorClass
  silentFailures: "SilentFailures", // dimension ErrorClass (Empty / Truncated / Refused separately)
  /**
   * Attempts of a step that ended in an error the state machine retries (dimensions Step, ErrorClass). A Lambda
   * cannot know whether it was the last attempt: retries performed = RetryableErrors − Failures of that class.
   */
  retries: "RetryableErrors",
  regenerations: "Regenerations", // dimension Kind
  reruns: "Reruns",
  cancels: "Cancels",
  executionDuration: "ExecutionDurationSeconds",
  inputTokens: "InputTokens", // dimension Layer
  outputTokens: "OutputTokens",
  cacheReadTokens: "CacheReadInputTokens",
  cacheWriteTokens: "CacheCreationInputTokens",
  /** MCP tool calls the approved Process did not permit (dimension Reason, lib/mcp/refusals.ts). */
  toolRefusals: "ToolCallsRefused",
  /** freee writes that may have landed and could not be confirmed by reading back (dimension Tool). */
  writeOutcomesUnknown: "WriteOutcomesUnknown",
  /** Refreshed freee token pairs neither stored nor parked: the workspace must reconnect (alarmed at 1). */
  freeeTokensLost: "FreeeTokensLost",
  /** Slack callbacks that are no event (dimension Type, e.g. app_rate_limited); counted by the ingress (./emf). */
  slackCallbacks: SLACK_CALLBACKS_METRIC,
  /** Plans a freee company switch made unapprovable, and clicks on them (dimensions Reason, Stage; ./emf). */
  approvalsRefused: APPROVALS_REFUSED_METRIC,
} as const;

const SILENT_FAILURES = new Set(["EmptyResponseError", "TruncatedResponseError", "RefusedResponseError", "IncompleteRunError"]);

export type TaskOutcome = "completed" | "failed" | "cancelled" | "closed" | "answered";

/**
 * Powertools Metrics (EMF) for the numbers an operator counts: outcomes, failures by layer and class (each
 * silent failure separately), retries, regenerations, reruns, cancels, L4 duration and tokens. Each call
 * publishes one EMF line at once (single metric), so a Lambda that fails right after still reported it.
 */
export class PipelineMetrics {
  constructor(private readonly metrics: Metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE })) {}

  taskEnded(outcome: TaskOutcome): void {
    this.count(MetricNames.tasksEnded, { Outcome: outcome });
  }

  failure(layer: string, errorClass: string): void {
    this.count(MetricNames.failures, { Layer: layer, ErrorClass: errorClass });
    if (SILENT_FAILURES.has(errorClass)) this.count(MetricNames.silentFailures, { ErrorClass: errorClass });
  }

  retry(step: string, errorClass: string): void {
    this.count(MetricNames.retries, { Step: step, ErrorClass: errorClass });
  }

  regeneration(kind: "prompt" | "process"): void {
    this.count(MetricNames.regenerations, { Kind: kind });
  }

  rerun(): void {
    this.count(MetricNames.reruns, {});
  }

  cancel(): void {
    this.count(MetricNames.cancels, {});
  }

  toolRefused(reason: string): void {
    this.count(MetricNames.toolRefusals, { Reason: reason });
  }

  writeOutcomeUnknown(tool: string): void {
    this.count(MetricNames.writeOutcomesUnknown, { Tool: tool });
  }

  freeeTokensLost(): void {
    this.count(MetricNames.freeeTokensLost, {});
  }

  executionFinished(durationSeconds: number, usage: TokenUsage | undefined): void {
    this.emit(MetricNames.executionDuration, MetricUnit.Seconds, durationSeconds, {});
    if (usage !== undefined) this.tokens("L4", usage);
  }

  tokens(layer: string, usage: TokenUsage): void {
    this.emit(MetricNames.inputTokens, MetricUnit.Count, usage.inputTokens, { Layer: layer });
    this.emit(MetricNames.outputTokens, MetricUnit.Count, usage.outputTokens, { Layer: layer });
    this.emit(MetricNames.cacheReadTokens, MetricUnit.Count, usage.cacheReadInputTokens, { Layer: layer });
    this.emit(MetricNames.cacheWriteTokens, MetricUnit.Count, usage.cacheCreationInputTokens, { Layer: layer });
  }

  private count(name: string, dimensions: Record<string, string>): void {
    this.emit(name, MetricUnit.Count, 1, dimensions);
  }

  private emit(name: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number, dimensions: Record<string, string>): void {
    const single = this.metrics.singleMetric();
    for (const [key, dim] of Object.entries(dimensions)) single.addDimension(key, dim);
    single.addMetric(name, unit, value);
  }
}
