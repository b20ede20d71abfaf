import { describe, expect, it } from "vitest";
import { buildLedger, renderLedger } from "../../lib/store/ledger";
import { buildHomeView } from "../../lib/ingress/home";
import { DEFAULT_APPROVAL_POLICY } from "../../lib/core/domain/approval-policy";
import type { AuditEntry } from "../../lib/core/domain/records";
import { AuthError } from "../../lib/core/errors/taxonomy";

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
    expect(ledger.runsNotCompleted).toEqual({
      IncompleteRunError: 1,
      FreeeForbiddenError: 0,
      FreeeNotFoundError: 0,
      FreeeRateLimitedError: 0,
      AuthError: 1,
      FreeeCompanyChangedError: 0,
      FreeeThrottledError: 1,
      WriteOutcomeUnknownError: 0,
    });
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

  it("a mixed set of failures: every task counted once — outcomes add up to the tasks, failed tasks by cause to 失敗 + タイムアウト (report and Home)", () => {
    const L4 = (taskId: string, at: string, errorType: string) => [e(taskId, "execution.started", at), e(taskId, "error.L4", at.replace(":00Z", ":30Z"), { layer: "L4", errorType })];
    const mixed = [
      // freee first: no connection, stopped before L1.
      e("M1", "task.created", "2026-11-10T00:00:00Z"),
      e("M1", "error.L1", "2026-11-10T00:00:01Z", { layer: "L1", errorType: "AuthError" }),
      // A write whose outcome is unknown: the MCP server's entry and the run's — one task.
      e("M2", "task.created", "2026-11-10T01:00:00Z"),
      e("M2", "execution.started", "2026-11-10T01:01:00Z"),
      e("M2", "error.freee", "2026-11-10T01:01:10Z", { layer: "freee", errorType: "WriteOutcomeUnknownError" }),
      e("M2", "error.L4", "2026-11-10T01:02:00Z", { layer: "L4", errorType: "WriteOutcomeUnknownError" }),
      // freee refused: 403, 404, 429, each its own class.
      e("M3", "task.created", "2026-11-10T02:00:00Z"),
      ...L4("M3", "2026-11-10T02:01:00Z", "FreeeForbiddenError"),
      e("M4", "task.created", "2026-11-10T03:00:00Z"),
      ...L4("M4", "2026-11-10T03:01:00Z", "FreeeNotFoundError"),
      e("M5", "task.created", "2026-11-10T04:00:00Z"),
      ...L4("M5", "2026-11-10T04:01:00Z", "FreeeRateLimitedError"),
      // Two runs failed, then a third completed: completed, no failure left.
      e("M6", "task.created", "2026-11-10T05:00:00Z"),
      ...L4("M6", "2026-11-10T05:01:00Z", "IncompleteRunError"),
      ...L4("M6", "2026-11-10T05:03:00Z", "FreeeRateLimitedError"),
      e("M6", "execution.started", "2026-11-10T05:05:00Z"),
      e("M6", "execution.completed", "2026-11-10T05:06:00Z"),
      // Two runs failed, both 403: one failed task.
      e("M7", "task.created", "2026-11-10T06:00:00Z"),
      ...L4("M7", "2026-11-10T06:01:00Z", "FreeeForbiddenError"),
      ...L4("M7", "2026-11-10T06:03:00Z", "FreeeForbiddenError"),
      // A Slack notify failure beside a completed run: an entry, no failed task.
      e("M8", "task.created", "2026-11-10T07:00:00Z"),
      e("M8", "execution.started", "2026-11-10T07:01:00Z"),
      e("M8", "error.slack", "2026-11-10T07:01:30Z", { layer: "slack", errorType: "TransientError" }),
      e("M8", "execution.completed", "2026-11-10T07:02:00Z"),
      // The run's timeout.
      e("M9", "task.created", "2026-11-10T08:00:00Z"),
      ...L4("M9", "2026-11-10T08:01:00Z", "RunTimeoutError"),
    ];
    const ledger = buildLedger(mixed, { since: "2026-11-01", until: "2026-11-30" });
    const tasks = new Set(mixed.map((x) => x.taskId)).size;
    expect(ledger.tasks).toHaveLength(tasks);
    expect(Object.values(ledger.byOutcome).reduce((a, b) => a + b, 0)).toBe(tasks);
    const failedTasks = ledger.byOutcome.failed + ledger.byOutcome.timed_out;
    expect(failedTasks).toBe(7);
    expect(ledger.failuresByClass.reduce((a, f) => a + f.count, 0)).toBe(failedTasks);
    expect(ledger.failuresByClass).toEqual([
      { layer: "L4", errorClass: "FreeeForbiddenError", count: 2 },
      { layer: "L1", errorClass: "AuthError", count: 1 },
      { layer: "L4", errorClass: "FreeeNotFoundError", count: 1 },
      { layer: "L4", errorClass: "FreeeRateLimitedError", count: 1 },
      { layer: "L4", errorClass: "RunTimeoutError", count: 1 },
      { layer: "L4", errorClass: "WriteOutcomeUnknownError", count: 1 },
    ]);
    // The audit log's entries stay countable, as entries (more than the tasks).
    expect(ledger.errorEntriesByClass.reduce((a, f) => a + f.count, 0)).toBe(mixed.filter((x) => x.action.startsWith("error.")).length);
    // The report: the task section adds up; the entries are said to be events.
    const text = renderLedger(ledger);
    const section = text.split("Failed tasks by layer and class")[1]!.split("\n\n")[0]!;
    const counts = [...section.matchAll(/^ {2}\S+\s+\S+\s+(\d+)\s/gm)].map((m) => Number(m[1]));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(failedTasks);
    expect(text).toMatch(/L4\s+FreeeForbiddenError\s+2\s+L4 実行 \/ freee の権限不足（403）/);
    expect(text).toContain("Error entries in the audit log");
    // App Home: the same numbers, in Japanese, adding up to the outcomes above them.
    const home = JSON.stringify(buildHomeView({ kind: "ok", data: { viewerIsAdmin: true, freee: { status: "connected" }, adminUserIds: [], approvalPolicy: DEFAULT_APPROVAL_POLICY, allowedExternalTeamIds: [], recentTasks: [], ledger } }));
    const homeCounts = [...home.matchAll(/• L\d [^:]+: [^—]+— (\d+) 件/g)].map((m) => Number(m[1]));
    expect(homeCounts.reduce((a, b) => a + b, 0)).toBe(failedTasks);
    expect(home).toContain("L4 実行: freee の権限不足（403） — 2 件");
    expect(home).toContain("L4 実行: freee に対象が見つからない（404） — 1 件");
    expect(home).toContain("L4 実行: freee の利用回数制限（429） — 1 件");
    expect(home).toContain("L1 タスク解析: freee 接続エラー — 1 件");
    expect(home).not.toMatch(/Error/);
  });
});

describe("an AuthError is named by whose credential failed", () => {
  // Entries as AuditLog.recordError writes them: the error's details, service included.
  const freee = new AuthError("freee GET /api/1/deals: refused (401 expired_access_token)", { service: "freee", details: { status: 401 } });
  const slack = new AuthError("chat.postMessage: Slack token rejected (invalid_auth)", { service: "slack", details: { slackError: "invalid_auth" } });
  const entries = [
    e("A", "task.created", "2026-11-01T00:00:00Z"),
    e("A", "error.L4", "2026-11-01T00:01:00Z", { layer: "L4", errorType: freee.name, details: freee.details }),
    e("B", "task.created", "2026-11-02T00:00:00Z"),
    e("B", "error.L1", "2026-11-02T00:01:00Z", { layer: "L1", errorType: slack.name, details: slack.details }),
    e("C", "task.created", "2026-11-03T00:00:00Z"),
    e("C", "error.slack", "2026-11-03T00:01:00Z", { layer: "slack", errorType: slack.name, details: slack.details }),
    // Caught by a state machine (name and message only): freee's, as a step's AuthErrors are.
    e("D", "task.created", "2026-11-04T00:00:00Z"),
    e("D", "error.L3", "2026-11-04T00:01:00Z", { layer: "L3", errorType: "AuthError" }),
  ];
  const ledger = buildLedger(entries, { since: "2026-11-01", until: "2026-11-30" });

  it("counted apart in the ledger, named apart in the report and App Home", () => {
    expect(ledger.failuresByClass).toEqual([
      { layer: "L1", errorClass: "AuthError", service: "slack", count: 1 },
      { layer: "L3", errorClass: "AuthError", count: 1 },
      { layer: "L4", errorClass: "AuthError", service: "freee", count: 1 },
    ]);
    expect(ledger.errorEntriesByClass).toContainEqual({ layer: "slack", errorClass: "AuthError", service: "slack", count: 1 });
    const text = renderLedger(ledger);
    expect(text).toMatch(/L1\s+AuthError\s+1\s+L1 タスク解析 \/ Slack 接続エラー/);
    expect(text).toMatch(/L4\s+AuthError\s+1\s+L4 実行 \/ freee 接続エラー/);
    expect(text).toMatch(/slack\s+AuthError\s+1\s+Slack \/ Slack 接続エラー/);
    const home = JSON.stringify(buildHomeView({ kind: "ok", data: { viewerIsAdmin: true, freee: { status: "connected" }, adminUserIds: [], approvalPolicy: DEFAULT_APPROVAL_POLICY, allowedExternalTeamIds: [], recentTasks: [], ledger } }));
    expect(home).toContain("L1 タスク解析: Slack 接続エラー — 1 件");
    expect(home).toContain("L4 実行: freee 接続エラー — 1 件");
    expect(home).toContain("L3 実行計画: freee 接続エラー — 1 件");
  });
});
