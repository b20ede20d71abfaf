import { redact } from "../../lib/core/redaction/redact";
import { describe, expect, it } from "vitest";
import type { AuditEntry, Execution } from "../../lib/core/domain/records";
import { StateConflictError } from "../../lib/core/errors/taxonomy";
import { useStore } from "./helpers";

/**
 * A status change may carry a further clause of its own (lib/store/transition.ts `condition`): the run's completion
 * is refused once a freee fault is stamped on it. Refused, by that clause or by the status, the StateConflictError
 * carries the item as the write found it, so the step acts on it without reading it again.
 */
const s = useStore();

const FAULT: NonNullable<Execution["fault"]> = { errorName: "AuthError", at: "2026-12-02T00:00:00.000Z", tool: "freee_hr_update_basic_pay_rule" };
const completedEntry = (taskId: string, teamId: string): AuditEntry => ({
  teamId,
  taskId,
  auditKey: "execution.completed#execution#1",
  at: new Date().toISOString(),
  action: "execution.completed",
  actor: "system:pipeline",
  layer: "L4",
  details: {},
});
const UNLESS_FAULT = { from: ["running"], condition: "attribute_not_exists(fault)", set: { endedAt: "2026-12-02T00:00:01.000Z" } } as const;

async function runningExecution() {
  const task = await s.newTask();
  await s.store.createExecution(task.taskId, { executionNo: 1, processVersion: 1, startedBy: "U1" });
  const { record } = await s.store.transitionExecution(task.taskId, 1, "running", { from: ["pending"] });
  return { task, held: record };
}

async function conflictOf(write: Promise<unknown>): Promise<StateConflictError> {
  const err = await write.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StateConflictError);
  return err as StateConflictError;
}

describe("a status change with a condition of its own", () => {
  it("met: the change and its entry are made", async () => {
    const { task, held } = await runningExecution();
    const out = await s.store.transitionExecutionWithEntry(held, "completed", UNLESS_FAULT, completedEntry(task.taskId, task.thread.teamId));
    expect(out).toMatchObject({ applied: true, entry: "written", record: { status: "completed" } });
    expect(out.record).toEqual(await s.store.getExecutionOrThrow(task.taskId, 1));
  });

  it("refused by it (a fault stamped after the read): StateConflictError that names the clause and carries the stamped item; no entry", async () => {
    const { task, held } = await runningExecution();
    expect(await s.store.recordRunFault(task.taskId, 1, FAULT)).toBe(true);
    const err = await conflictOf(s.store.transitionExecutionWithEntry(held, "completed", UNLESS_FAULT, completedEntry(task.taskId, task.thread.teamId)));
    expect(err.details).toMatchObject({ actual: "running", condition: "attribute_not_exists(fault)" });
    expect(err.current).toEqual(await s.store.getExecutionOrThrow(task.taskId, 1));
    expect(err.current).toMatchObject({ status: "running", fault: FAULT });
    expect(err.details).not.toHaveProperty("current");
    // A logger copies an error's own enumerable fields (lib/core/redaction/redact.ts): the record is not one of them.
    expect(Object.keys(err)).not.toContain("current");
    expect(redact(err)).not.toHaveProperty("current");
    expect((await s.store.loadHistory(task.taskId)).audit.filter((a) => a.action === "execution.completed")).toEqual([]);
    // The single-item change refuses it the same way.
    const plain = await conflictOf(s.store.transitionExecution(task.taskId, 1, "completed", UNLESS_FAULT));
    expect(plain.current).toMatchObject({ fault: FAULT });
  });

  it("refused by the status (cancelled meanwhile): the conflict carries the cancelled item, not the clause", async () => {
    const { task, held } = await runningExecution();
    await s.store.transitionExecution(task.taskId, 1, "cancelled", { from: ["running"] });
    const err = await conflictOf(s.store.transitionExecutionWithEntry(held, "completed", UNLESS_FAULT, completedEntry(task.taskId, task.thread.teamId)));
    expect(err.details).toMatchObject({ actual: "cancelled" });
    expect(err.details).not.toHaveProperty("condition");
    expect(err.current).toMatchObject({ status: "cancelled" });
  });
});
