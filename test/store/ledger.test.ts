import { describe, expect, it } from "vitest";
import { buildLedger, renderLedger } from "../../lib/store/ledger";
import type { AuditEntry } from "../../lib/core/domain/records";

let n = 0;
const e = (taskId: string, action: string, at: string, extra: Partial<AuditEntry> = {}): AuditEntry => ({
  teamId: "T1",
  taskId,
  auditKey: `${action}#${++n}`,
  at,
  action,
  actor: "system",
  details: {},
  ...extra,
});

describe("ledger report from the audit log", () => {
  const entries = [
    e("A", "task.created", "2026-11-01T00:00:00Z"),
    e("A", "execution.started", "2026-11-01T00:01:00Z"),
    e("A", "execution.completed", "2026-11-01T00:02:00Z"),
    e("B", "task.created", "2026-11-02T00:00:00Z"),
    e("B", "error.L2", "2026-11-02T00:00:05Z", { layer: "L2", errorType: "EmptyResponseError" }),
    e("C", "task.created", "2026-11-03T00:00:00Z"),
    e("C", "execution.started", "2026-11-03T00:01:00Z"),
    e("C", "execution.timed_out", "2026-11-03T00:07:00Z", { errorType: "RunTimeoutError" }),
    e("C", "execution.started", "2026-11-03T00:08:00Z"),
    e("D", "task.created", "2026-11-04T00:00:00Z"),
    e("D", "execution.started", "2026-11-04T00:01:00Z"),
    e("D", "execution.cancelled", "2026-11-04T00:01:30Z", { actor: "U1" }),
    e("E", "task.created", "2026-11-05T00:00:00Z"),
    e("E", "error.L3", "2026-11-05T00:00:05Z", { layer: "L3", errorType: "TruncatedResponseError" }),
    e("F", "task.created", "2026-11-06T00:00:00Z"),
    e("F", "prompt.limit_reached", "2026-11-06T00:00:05Z"),
    e("G", "task.created", "2026-11-07T00:00:00Z"),
    e("G", "task.answered", "2026-11-07T00:00:02Z", { layer: "L1", details: { kind: "not_a_request" } }),
  ];

  it("counts each task once, by its latest terminal entry", () => {
    const ledger = buildLedger(entries, { since: "2026-11-01", until: "2026-11-30" });
    expect(ledger.byOutcome).toEqual({ completed: 1, failed: 2, timed_out: 0, cancelled: 1, limit_reached: 1, expired: 0, not_a_request: 1, in_progress: 1 });
    // A greeting answered in the thread is neither a failure nor work in progress.
    expect(ledger.tasks.find((t) => t.taskId === "G")?.outcome).toBe("not_a_request");
  });

  it("a rerun that started after a timeout is in progress, not done and not still failed", () => {
    const ledger = buildLedger(entries, { since: "2026-11-01", until: "2026-11-30" });
    expect(ledger.tasks.find((t) => t.taskId === "C")?.outcome).toBe("in_progress");
  });

  it("failures by layer and class, each silent failure separately", () => {
    const ledger = buildLedger(entries, { since: "2026-11-01", until: "2026-11-30" });
    expect(ledger.failuresByClass).toEqual([
      { layer: "L2", errorClass: "EmptyResponseError", count: 1 },
      { layer: "L3", errorClass: "TruncatedResponseError", count: 1 },
    ]);
  });

  it("renders a readable table", () => {
    const text = renderLedger(buildLedger(entries, { since: "2026-11-01", until: "2026-11-30" }));
    expect(text).toContain("completed");
    expect(text).toMatch(/L2\s+EmptyResponseError\s+1/);
  });

  it("runs the completion contract refused count by why (steps undone, freee connection), and each task is failed, not completed", () => {
    const runs = [
      e("G", "execution.started", "2026-11-07T00:01:00Z"),
      e("G", "error.L4", "2026-11-07T00:02:00Z", { layer: "L4", errorType: "IncompleteRunError" }),
      e("H", "execution.started", "2026-11-08T00:01:00Z"),
      e("H", "error.L4", "2026-11-08T00:02:00Z", { layer: "L4", errorType: "AuthError" }),
      e("I", "error.L3", "2026-11-09T00:02:00Z", { layer: "L3", errorType: "AuthError" }),
      e("J", "execution.started", "2026-11-10T00:01:00Z"),
      e("J", "error.L4", "2026-11-10T00:02:00Z", { layer: "L4", errorType: "FreeeThrottledError" }),
    ];
    const ledger = buildLedger(runs, { since: "2026-11-01", until: "2026-11-30" });
    expect(ledger.runsNotCompleted).toEqual({ IncompleteRunError: 1, AuthError: 1, FreeeCompanyChangedError: 0, FreeeThrottledError: 1, WriteOutcomeUnknownError: 0 });
    expect(ledger.tasks.filter((t) => t.outcome === "failed").map((t) => [t.taskId, t.errorClass])).toEqual([
      ["G", "IncompleteRunError"],
      ["H", "AuthError"],
      ["I", "AuthError"],
      ["J", "FreeeThrottledError"],
    ]);
    expect(ledger.byOutcome.completed).toBe(0);
    const text = renderLedger(ledger);
    expect(text).toMatch(/IncompleteRunError\s+1/);
    expect(text).toMatch(/L4\s+AuthError\s+1/);
    expect(text).toMatch(/FreeeThrottledError\s+1/);
  });
});
