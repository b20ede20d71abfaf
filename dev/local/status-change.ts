import type { Logger } from "@aws-lambda-powertools/logger";
import type { LocalExecution } from "./local-step-functions";

/**
 * The deployed EventBridge rule (infra/constructs/reconciler.ts) for the local stack: an execution that ended
 * FAILED or ABORTED (TIMED_OUT cannot happen locally) is sent to the reconciler as EventBridge sends it, and a
 * failed delivery is retried as Lambda retries an asynchronous invocation (two more attempts, the pause growing).
 */
export function statusChangeEvent(execution: LocalExecution): Record<string, unknown> | undefined {
  if (execution.status !== "FAILED" && execution.status !== "ABORTED") return undefined;
  return {
    version: "0",
    id: `local-${execution.name}-${execution.status}`,
    source: "aws.states",
    "detail-type": "Step Functions Execution Status Change",
    time: new Date().toISOString(),
    detail: {
      executionArn: execution.executionArn,
      stateMachineArn: execution.stateMachineArn,
      name: execution.name,
      status: execution.status,
      input: JSON.stringify(execution.input ?? {}),
      error: execution.error ?? null,
      cause: execution.cause === undefined ? null : typeof execution.cause === "string" ? execution.cause : JSON.stringify(execution.cause),
    },
  };
}

export interface StatusChangeRule {
  onEnded(execution: LocalExecution): void;
  /** Resolves when no delivery is under way (tests wait for the second line to have run). */
  idle(): Promise<void>;
  /** Stop taking events and wait for the deliveries under way (shutdown). */
  drain(): Promise<void>;
}

export function startStatusChangeRule(options: { deliver: (event: unknown) => Promise<unknown>; pauseMs: number; log: Logger; attempts?: number }): StatusChangeRule {
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  const attempts = options.attempts ?? 3;
  const deliver = async (event: Record<string, unknown>) => {
    for (let attempt = 1; attempt <= attempts && !stopped; attempt++) {
      try {
        await options.deliver(event);
        return;
      } catch (err) {
        options.log.error("reconciler delivery failed", {
          attempt,
          executionName: (event.detail as { name?: string }).name,
          error_type: err instanceof Error ? err.name : "unknown",
          error_message: err instanceof Error ? err.message : String(err),
        });
        if (attempt < attempts) await new Promise((r) => setTimeout(r, options.pauseMs * 2 ** (attempt - 1)));
      }
    }
  };
  return {
    onEnded(execution) {
      const event = statusChangeEvent(execution);
      if (event === undefined || stopped) return;
      const run = deliver(event);
      inFlight.add(run);
      void run.finally(() => inFlight.delete(run));
    },
    async idle() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    async drain() {
      stopped = true;
      await Promise.all([...inFlight]);
    },
  };
}
