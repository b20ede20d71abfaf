import type { LocalStepFunctions } from "../local/local-step-functions";

/**
 * Which step of the task is at work when a request reaches a fault proxy: the Task state each running
 * execution is in (read from the local runner's event log, which has the StateEntered event before the
 * handler's first request leaves), plus what the simulated user is doing at the ingress (`ingress:approve`,
 * …) and sticky marks the scenario sets (`after:cancel`) for effects that follow a click in the background.
 */
export class PhaseTracker {
  private readonly ingress = new Set<string>();
  private readonly marks = new Set<string>();

  constructor(private readonly local: () => LocalStepFunctions | undefined) {}

  active(): string[] {
    const out = [...this.ingress].map((p) => `ingress:${p}`);
    out.push(...[...this.marks].map((m) => `after:${m}`));
    for (const execution of this.local()?.executions.values() ?? []) {
      if (execution.status !== "RUNNING") continue;
      const state = currentState(execution.events as { type: string; state?: { name?: string } }[]);
      if (state !== undefined) out.push(state);
    }
    return out;
  }

  /** Run an ingress request (a click, a message delivery) as phase `name`. */
  async at<T>(name: string, work: () => Promise<T>): Promise<T> {
    this.ingress.add(name);
    try {
      return await work();
    } finally {
      this.ingress.delete(name);
    }
  }

  mark(name: string): void {
    this.marks.add(name);
  }
}

/** The Task state an execution is in: the last one entered (or retried) and not yet left. */
function currentState(events: readonly { type: string; state?: { name?: string } }[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    const name = event.state?.name;
    if (name === undefined) continue;
    if (event.type === "StateEntered" || event.type === "StateRetried") return name;
    return undefined;
  }
  return undefined;
}
