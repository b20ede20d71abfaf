import { describe, expect, it } from "vitest";
import {
  assertTransition,
  canTransition,
  EXECUTION_STATUSES,
  EXECUTION_TRANSITIONS,
  isTerminal,
  TASK_TRANSITIONS,
  VERSION_TRANSITIONS,
} from "../../../lib/core/domain/status";
import { IllegalTransitionError, StateConflictError } from "../../../lib/core/errors/taxonomy";
import { executionIdFor, ProcessStepSchema, taskIdFor, TaskSpecSchema } from "../../../lib/core/domain/records";

describe("status transitions as data", () => {
  it("versions: generating → pending_approval → approved / rejected / failed", () => {
    expect(canTransition("version", "generating", "pending_approval")).toBe(true);
    expect(canTransition("version", "pending_approval", "approved")).toBe(true);
    expect(canTransition("version", "pending_approval", "rejected")).toBe(true);
    expect(canTransition("version", "generating", "failed")).toBe(true);
    expect(canTransition("version", "pending_approval", "expired")).toBe(true);
    // A plan that only reads, approved by its 実行方針 approval (never rejected without a person).
    expect(canTransition("version", "generating", "approved")).toBe(true);
    expect(canTransition("version", "generating", "rejected")).toBe(false);
  });

  it("executions: pending → running → completed / failed / cancelled / timed_out", () => {
    for (const end of ["completed", "failed", "cancelled", "timed_out"]) {
      expect(canTransition("execution", "running", end)).toBe(true);
    }
    expect(canTransition("execution", "pending", "running")).toBe(true);
  });

  it("cancel only from running, never from a finished run", () => {
    expect(canTransition("execution", "running", "cancelled")).toBe(true);
    expect(canTransition("execution", "completed", "cancelled")).toBe(false);
    expect(canTransition("execution", "failed", "cancelled")).toBe(false);
  });

  it("an illegal transition is a typed error", () => {
    expect(() => assertTransition("version", "approved", "rejected")).toThrow(IllegalTransitionError);
    expect(() => assertTransition("execution", "completed", "running")).toThrow(StateConflictError);
    expect(() => assertTransition("task", "completed", "executing")).toThrow(/completed → executing/);
  });

  it("a rerun starts from failed or cancelled, never from completed", () => {
    expect(canTransition("task", "failed", "executing")).toBe(true);
    expect(canTransition("task", "cancelled", "executing")).toBe(true);
    expect(canTransition("task", "completed", "executing")).toBe(false);
  });

  it("terminal states have no way out; every target is itself a known status", () => {
    expect(isTerminal("execution", "completed")).toBe(true);
    expect(isTerminal("execution", "running")).toBe(false);
    for (const table of [TASK_TRANSITIONS, VERSION_TRANSITIONS, EXECUTION_TRANSITIONS] as Record<string, readonly string[]>[]) {
      const known = new Set(Object.keys(table));
      for (const targets of Object.values(table)) for (const t of targets) expect(known.has(t)).toBe(true);
    }
    expect(Object.keys(EXECUTION_TRANSITIONS).sort()).toEqual([...EXECUTION_STATUSES].sort());
  });
});

describe("ids and schemas", () => {
  it("task id derives from team, channel and ts, and fits a Step Functions execution name", () => {
    const id = taskIdFor({ teamId: "T0123456789", channelId: "C0123456789", messageTs: "1700000000.000100" });
    expect(id).toBe("T0123456789-C0123456789-1700000000_000100");
    expect(id).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
    expect(executionIdFor(id, 2)).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
  });

  it("a process step needs stepId, order, tool and toolInput", () => {
    expect(ProcessStepSchema.safeParse({ stepId: "s1", order: 1, tool: "t", toolInput: {} }).success).toBe(true);
    expect(ProcessStepSchema.safeParse({ stepId: "s1", order: 1, tool: "t" }).success).toBe(false);
  });

  it("a task spec with an empty title is refused", () => {
    expect(TaskSpecSchema.safeParse({ title: "", intent: "x", domain: "hr", parameters: {}, missingInformation: [] }).success).toBe(false);
  });
});
