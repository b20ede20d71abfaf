import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../lib/core/domain/records";
import { RecordNotFoundError, StateConflictError } from "../../lib/core/errors/taxonomy";
import { useStore } from "./helpers";

/**
 * A step that read an item just before may change its status and write the change's audit entry in one
 * transaction (lib/store/transition.ts transitionWithEntry). The transaction returns no item, so the record the
 * step goes on with is the read one with the change applied: it must be exactly what the table now holds.
 * And a step's reads of several items of a task are one consistent request (lib/store/snapshot.ts).
 */
const s = useStore();

const entryFor = (taskId: string, teamId: string, action: string): AuditEntry => ({
  teamId,
  taskId,
  auditKey: `${action}#task`,
  at: new Date().toISOString(),
  action,
  actor: "system:pipeline",
  layer: "L1",
  details: {},
});
const entriesOf = async (taskId: string, action: string) => (await s.store.loadHistory(taskId)).audit.filter((a) => a.action === action);
const spec = { title: "山田さんの基本給変更", intent: "基本給を変える", domain: "hr" as const, parameters: {}, missingInformation: [] };

describe("transitionWithEntry: the change and its entry in one transaction, the record from the held one", () => {
  it("the record returned is the item as stored (fields set, undefined ones left out), and the entry is written", async () => {
    const held = await s.newTask();
    const out = await s.store.transitionTaskWithEntry(held, "prompt_review", { from: ["analyzing"], set: { spec, reply: undefined } }, entryFor(held.taskId, held.thread.teamId, "task.analyzed"));
    expect(out.applied).toBe(true);
    expect(out.entry).toBe("written");
    expect(out.record).toEqual(await s.store.getTaskOrThrow(held.taskId));
    expect(out.record).toMatchObject({ status: "prompt_review", spec });
    expect(out.record).not.toHaveProperty("reply");
    expect(await entriesOf(held.taskId, "task.analyzed")).toHaveLength(1);
  });

  it("removed fields are gone from the record as from the item", async () => {
    const task = await s.newTask();
    await s.store.createExecution(task.taskId, { executionNo: 1, processVersion: 1, startedBy: "U1" });
    const { record: running } = await s.store.transitionExecution(task.taskId, 1, "running", { from: ["pending"], set: { startedAt: new Date().toISOString() } });
    const out = await s.store.transitionExecutionWithEntry(running, "failed", { from: ["running"], set: { errorClass: "AuthError" }, remove: ["startedAt"] }, entryFor(task.taskId, task.thread.teamId, "execution.failed"));
    expect(out.record).toEqual(await s.store.getExecutionOrThrow(task.taskId, 1));
    expect(out.record).not.toHaveProperty("startedAt");
  });

  it("a retry after it committed: not applied, the entry existed, the record is the stored one — nothing twice", async () => {
    const held = await s.newTask();
    const entry = entryFor(held.taskId, held.thread.teamId, "task.analyzed");
    await s.store.transitionTaskWithEntry(held, "prompt_review", { from: ["analyzing"], set: { spec } }, entry);
    const again = await s.store.transitionTaskWithEntry(held, "prompt_review", { from: ["analyzing"], set: { spec } }, entry);
    expect(again).toMatchObject({ applied: false, entry: "existed" });
    expect(again.record).toEqual(await s.store.getTaskOrThrow(held.taskId));
    expect(await entriesOf(held.taskId, "task.analyzed")).toHaveLength(1);
  });

  it("a status it may not start from: StateConflictError, and no entry without its change", async () => {
    const held = await s.newTask();
    await s.store.transitionTask(held.taskId, "failed", { from: ["analyzing"] });
    await expect(s.store.transitionTaskWithEntry(held, "prompt_review", { from: ["analyzing"], set: { spec } }, entryFor(held.taskId, held.thread.teamId, "task.analyzed"))).rejects.toBeInstanceOf(StateConflictError);
    expect(await entriesOf(held.taskId, "task.analyzed")).toEqual([]);
  });
});

describe("readSnapshot: a task and its items in one read", () => {
  it("the task, a version and an execution as getTask / getVersion / getExecution read them; a missing one is absent", async () => {
    const task = await s.newTask();
    await s.store.createVersion("prompt", task.taskId, 1);
    await s.store.createExecution(task.taskId, { executionNo: 1, processVersion: 1, startedBy: "U1" });
    const snap = await s.store.readSnapshot(task.taskId, { version: { kind: "prompt", version: 1 }, execution: 1 });
    expect(snap.task).toEqual(await s.store.getTaskOrThrow(task.taskId));
    expect(snap.version).toEqual(await s.store.getVersionOrThrow("prompt", task.taskId, 1));
    expect(snap.execution).toEqual(await s.store.getExecutionOrThrow(task.taskId, 1));
    const partial = await s.store.readSnapshot(task.taskId, { version: { kind: "process", version: 1 }, execution: 2 });
    expect(partial.version).toBeUndefined();
    expect(partial.execution).toBeUndefined();
  });

  it("no task: RecordNotFoundError", async () => {
    await expect(s.store.readSnapshot("T1-C1-0000000000_999999", { execution: 1 })).rejects.toBeInstanceOf(RecordNotFoundError);
  });
});

describe("createVersion from a held task: the version and the task's pointer in one transaction", () => {
  it("the task returned is the task as stored, pointing at the new version", async () => {
    const held = await s.newTask();
    const out = await s.store.createVersion("process", held.taskId, 1, { basedOnPromptVersion: 1 }, undefined, held);
    expect(out.applied).toBe(true);
    expect(out.task).toEqual(await s.store.getTaskOrThrow(held.taskId));
    expect(out.task?.currentProcessVersion).toBe(1);
    expect(out.record).toEqual(await s.store.getVersionOrThrow("process", held.taskId, 1));
  });

  it("a later version already current (a stale retry): the version is created, the pointer stays, no task is returned", async () => {
    const task = await s.newTask();
    await s.store.createVersion("process", task.taskId, 2, { basedOnPromptVersion: 1 });
    const held = await s.store.getTaskOrThrow(task.taskId);
    const out = await s.store.createVersion("process", task.taskId, 1, { basedOnPromptVersion: 1 }, undefined, held);
    expect(out.applied).toBe(true);
    expect(out.task).toBeUndefined();
    expect((await s.store.getTaskOrThrow(task.taskId)).currentProcessVersion).toBe(2);
    expect(await s.store.getVersion("process", task.taskId, 1)).toBeDefined();
  });
});
