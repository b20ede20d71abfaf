import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TaskStore } from "../../lib/store/task-store";
import { IllegalTransitionError, LimitReachedError, RecordNotFoundError, StateConflictError } from "../../lib/errors/taxonomy";
import type { SlackThread } from "../../lib/domain/records";
import { startTestTable, type TestTable } from "../support/dynamo";

let table: TestTable;
let store: TaskStore;
let seq = 0;

beforeAll(async () => {
  table = await startTestTable();
  store = new TaskStore(table.doc, table.tableName);
});
afterAll(async () => table.close());

function thread(team = "T1"): SlackThread {
  seq += 1;
  return { teamId: team, channelId: "C1", messageTs: `1700000000.${String(seq).padStart(6, "0")}` };
}

async function newTask(team = "T1") {
  const t = thread(team);
  const { record } = await store.createTask({ thread: t, requesterId: "U1", requestText: "来月から山田さんの基本給を30万円に変更して", pipelineExecutionName: "n" });
  return record;
}

describe("tasks", () => {
  it("one message → one task: a second create returns the first, unchanged (seed §8 UNIQUE → idempotent)", async () => {
    const t = thread();
    const first = await store.createTask({ thread: t, requesterId: "U1", requestText: "一回目", pipelineExecutionName: "n" });
    const again = await store.createTask({ thread: t, requesterId: "U2", requestText: "二回目", pipelineExecutionName: "n" });
    expect(first.applied).toBe(true);
    expect(again.applied).toBe(false);
    expect(again.record.requestText).toBe("一回目");
  });

  it("concurrent creates of the same message: exactly one applies", async () => {
    const t = thread();
    const results = await Promise.all(
      Array.from({ length: 11 }, () => store.createTask({ thread: t, requesterId: "U1", requestText: "同時", pipelineExecutionName: "n" })),
    );
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(new Set(results.map((r) => r.record.taskId)).size).toBe(1);
  });

  it("Japanese text is stored as is", async () => {
    const task = await newTask();
    expect((await store.getTaskOrThrow(task.taskId)).requestText).toBe("来月から山田さんの基本給を30万円に変更して");
  });

  it("status change is conditional; a retried identical change is applied:false, not an error", async () => {
    const task = await newTask();
    const first = await store.transitionTask(task.taskId, "prompt_review");
    const retried = await store.transitionTask(task.taskId, "prompt_review");
    expect(first.applied).toBe(true);
    expect(retried.applied).toBe(false);
    expect(retried.record.status).toBe("prompt_review");
  });

  it("a change from the wrong state is a StateConflictError that names both states", async () => {
    const task = await newTask();
    await expect(store.transitionTask(task.taskId, "executing", { from: ["process_review"] })).rejects.toMatchObject({
      name: "StateConflictError",
      details: { actual: "analyzing", to: "executing" },
    });
  });

  it("an illegal transition is refused before any write", async () => {
    const task = await newTask();
    await expect(store.transitionTask(task.taskId, "completed", { from: ["analyzing"] })).rejects.toBeInstanceOf(IllegalTransitionError);
    expect((await store.getTaskOrThrow(task.taskId)).status).toBe("analyzing");
  });

  it("a missing task is RecordNotFoundError", async () => {
    await expect(store.transitionTask("nope", "failed")).rejects.toBeInstanceOf(RecordNotFoundError);
    await expect(store.getTaskOrThrow("nope")).rejects.toBeInstanceOf(RecordNotFoundError);
  });

  it("card refs and the L1 spec are stored on the task", async () => {
    const task = await newTask();
    await store.setCardTs(task.taskId, "prompt", "1700000001.000200");
    const updated = await store.updateTask(task.taskId, { spec: { title: "基本給変更", intent: "update", domain: "hr", parameters: { amount: 300000 }, missingInformation: [] } });
    expect(updated.cards.prompt).toBe("1700000001.000200");
    expect(updated.spec?.parameters).toEqual({ amount: 300000 });
  });
});

describe("prompt / process versions", () => {
  it("create → content → approval → decision; each step once", async () => {
    const task = await newTask();
    const created = await store.createVersion("prompt", task.taskId, 1);
    expect(created.applied).toBe(true);
    expect(created.record.status).toBe("generating");
    expect((await store.getTaskOrThrow(task.taskId)).currentPromptVersion).toBe(1);

    const saved = await store.saveVersionContent("prompt", task.taskId, 1, { text: "山田さんの基本給を更新します。" });
    expect(saved.applied).toBe(true);
    const savedAgain = await store.saveVersionContent("prompt", task.taskId, 1, { text: "別の本文" });
    expect(savedAgain.applied).toBe(false);
    expect((savedAgain.record as { text?: string }).text).toBe("山田さんの基本給を更新します。");

    const opened = await store.openApproval("prompt", task.taskId, 1, "token-1");
    expect(opened.record.status).toBe("pending_approval");
    // A retried approval task brings a new token: it replaces the old one while still pending.
    const reopened = await store.openApproval("prompt", task.taskId, 1, "token-2");
    expect(reopened.record.taskToken).toBe("token-2");

    const decision = { decision: "approved" as const, actorId: "U1", decidedAt: new Date().toISOString() };
    const decided = await store.transitionVersion("prompt", task.taskId, 1, "approved", { from: ["pending_approval"], set: { decision }, returnOld: true });
    expect(decided.applied).toBe(true);
    expect(decided.record.taskToken).toBe("token-2");
    const twice = await store.transitionVersion("prompt", task.taskId, 1, "approved", { from: ["pending_approval"], set: { decision } });
    expect(twice.applied).toBe(false);
    await expect(store.openApproval("prompt", task.taskId, 1, "token-3")).rejects.toBeInstanceOf(StateConflictError);
  });

  it("10 concurrent decisions on one version: exactly one applies (double click)", async () => {
    const task = await newTask();
    await store.createVersion("process", task.taskId, 1, { basedOnPromptVersion: 1 });
    await store.saveVersionContent("process", task.taskId, 1, { steps: [{ stepId: "s1", order: 1, tool: "freee_hr_list_employees", toolInput: { year: 2026, month: 12 } }] });
    await store.openApproval("process", task.taskId, 1, "tok");
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        store.transitionVersion("process", task.taskId, 1, i % 2 === 0 ? "approved" : "rejected", {
          from: ["pending_approval"],
          set: { decision: { decision: i % 2 === 0 ? "approved" : "rejected", reason: "理由", actorId: `U${i}`, decidedAt: new Date().toISOString() } },
          returnOld: true,
        }),
      ),
    );
    const applied = results.filter((r) => r.status === "fulfilled" && r.value.applied);
    expect(applied).toHaveLength(1);
    // The losers either see their own target already there (applied:false) or a conflict: nothing changes twice.
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(StateConflictError);
  });

  it("a retried createVersion returns the existing version and does not move the current pointer back", async () => {
    const task = await newTask();
    await store.createVersion("prompt", task.taskId, 1);
    await store.createVersion("prompt", task.taskId, 2, { regeneratedFor: "金額が違います" });
    const retried = await store.createVersion("prompt", task.taskId, 1);
    expect(retried.applied).toBe(false);
    const t = await store.getTaskOrThrow(task.taskId);
    expect(t.currentPromptVersion).toBe(2);
    expect((await store.getVersionOrThrow("prompt", task.taskId, 2)).regeneratedFor).toBe("金額が違います");
  });

  it("reopenApproval undoes only the decision the caller wrote (its decidedAt), restoring the token", async () => {
    const task = await newTask();
    await store.createVersion("prompt", task.taskId, 1);
    await store.saveVersionContent("prompt", task.taskId, 1, { text: "方針" });
    await store.openApproval("prompt", task.taskId, 1, "tok-1");
    const decidedAt = "2026-11-30T00:00:00.000Z";
    await store.transitionVersion("prompt", task.taskId, 1, "approved", { from: ["pending_approval"], set: { decision: { decision: "approved", actorId: "U1", decidedAt } }, remove: ["taskToken"] });
    const other = await store.reopenApproval("prompt", task.taskId, 1, { taskToken: "tok-1", decidedAt: "2026-11-30T00:00:01.000Z" });
    expect(other.applied).toBe(false);
    expect(other.record.status).toBe("approved");
    const mine = await store.reopenApproval("prompt", task.taskId, 1, { taskToken: "tok-1", decidedAt });
    expect(mine.applied).toBe(true);
    expect(mine.record).toMatchObject({ status: "pending_approval", taskToken: "tok-1" });
    expect(mine.record.decision).toBeUndefined();
  });

  it("content cannot be saved to a version that is no longer generating", async () => {
    const task = await newTask();
    await store.createVersion("prompt", task.taskId, 1);
    await store.transitionVersion("prompt", task.taskId, 1, "failed", { set: { errorName: "EmptyResponseError" } });
    await expect(store.saveVersionContent("prompt", task.taskId, 1, { text: "late" })).rejects.toBeInstanceOf(StateConflictError);
  });

  it("approval cannot open without content (nothing empty is ever put up for approval)", async () => {
    const task = await newTask();
    await store.createVersion("prompt", task.taskId, 1);
    await expect(store.openApproval("prompt", task.taskId, 1, "tok")).rejects.toBeInstanceOf(StateConflictError);
  });
});

describe("executions", () => {
  async function approvedTask() {
    const task = await newTask();
    await store.transitionTask(task.taskId, "prompt_review");
    await store.transitionTask(task.taskId, "process_review");
    await store.updateTask(task.taskId, { approvedProcessVersion: 1 });
    return task;
  }

  it("allocate → create → running → completed; every step conditional", async () => {
    const task = await approvedTask();
    const { executionNo, applied } = await store.allocateExecution(task.taskId, { from: ["process_review"], maxExecutions: 4 });
    expect(applied).toBe(true);
    expect(executionNo).toBe(1);
    const created = await store.createExecution(task.taskId, { executionNo, processVersion: 1, startedBy: "U1" });
    expect(created.record.executionId).toBe(`${task.taskId}-e1`);
    expect((await store.createExecution(task.taskId, { executionNo, processVersion: 1, startedBy: "U1" })).applied).toBe(false);
    await store.transitionExecution(task.taskId, 1, "running", { set: { sessionId: "sess_1" } });
    const progress = { seenEventIds: ["e1"], completedSteps: 1, toolErrors: [] };
    expect((await store.recordProgress(task.taskId, 1, { progress })).applied).toBe(true);
    const done = await store.transitionExecution(task.taskId, 1, "completed", { set: { resultSummary: "完了" } });
    expect(done.record.status).toBe("completed");
    // Progress after the end is refused and the final record returned.
    const late = await store.recordProgress(task.taskId, 1, { progress });
    expect(late.applied).toBe(false);
    expect(late.record.status).toBe("completed");
  });

  it("cancel only from running: a completed run cannot be cancelled (seed §6.2)", async () => {
    const task = await approvedTask();
    await store.allocateExecution(task.taskId, { from: ["process_review"], maxExecutions: 4 });
    await store.createExecution(task.taskId, { executionNo: 1, processVersion: 1, startedBy: "U1" });
    await store.transitionExecution(task.taskId, 1, "running");
    await store.transitionExecution(task.taskId, 1, "completed");
    await expect(store.transitionExecution(task.taskId, 1, "cancelled", { from: ["running"] })).rejects.toBeInstanceOf(StateConflictError);
  });

  it("rerun limit: the 4th run is allowed, the 5th is LimitReachedError (3 reruns, seed §5.2)", async () => {
    const task = await approvedTask();
    for (let run = 1; run <= 4; run++) {
      const { executionNo } = await store.allocateExecution(task.taskId, { from: run === 1 ? ["process_review"] : ["failed", "cancelled"], maxExecutions: 4 });
      expect(executionNo).toBe(run);
      await store.createExecution(task.taskId, { executionNo, processVersion: 1, startedBy: "U1" });
      await store.transitionExecution(task.taskId, executionNo, "running");
      await store.transitionExecution(task.taskId, executionNo, "failed");
      await store.transitionTask(task.taskId, "failed");
    }
    await expect(store.allocateExecution(task.taskId, { from: ["failed", "cancelled"], maxExecutions: 4 })).rejects.toBeInstanceOf(LimitReachedError);
    expect((await store.getTaskOrThrow(task.taskId)).executionCount).toBe(4);
  });

  it("concurrent reruns (double click): one new execution number, the others resume it", async () => {
    const task = await approvedTask();
    await store.allocateExecution(task.taskId, { from: ["process_review"], maxExecutions: 4 });
    await store.transitionTask(task.taskId, "failed");
    const results = await Promise.all(
      Array.from({ length: 5 }, () => store.allocateExecution(task.taskId, { from: ["failed", "cancelled"], maxExecutions: 4 })),
    );
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(new Set(results.map((r) => r.executionNo))).toEqual(new Set([2]));
  });
});

describe("audit and history", () => {
  let team: string;
  beforeEach(() => {
    team = `TA${++seq}`;
  });

  it("an audit entry is written once per key, however often the step runs", async () => {
    const task = await newTask(team);
    const entry = { teamId: team, taskId: task.taskId, auditKey: "prompt.rejected#prompt#1", at: new Date().toISOString(), action: "prompt.rejected", actor: "U1", details: { reason: "違う" } };
    expect((await store.appendAudit(entry)).applied).toBe(true);
    expect((await store.appendAudit({ ...entry, at: new Date().toISOString() })).applied).toBe(false);
    const history = await store.loadHistory(task.taskId);
    expect(history.audit).toHaveLength(1);
  });

  it("the whole history of a task comes back from its partition", async () => {
    const task = await newTask(team);
    await store.createVersion("prompt", task.taskId, 1);
    await store.createVersion("process", task.taskId, 1, { basedOnPromptVersion: 1 });
    await store.appendAudit({ teamId: team, taskId: task.taskId, auditKey: "task.created#task", at: new Date().toISOString(), action: "task.created", actor: "U1", details: {} });
    const history = await store.loadHistory(task.taskId);
    expect(history.task.taskId).toBe(task.taskId);
    expect(history.prompts.map((p) => p.version)).toEqual([1]);
    expect(history.processes.map((p) => p.version)).toEqual([1]);
    expect(history.audit.map((a) => a.action)).toEqual(["task.created"]);
  });

  it("audit entries list by workspace and time window (GSI), other workspaces excluded", async () => {
    const task = await newTask(team);
    const other = await newTask(`${team}x`);
    await store.appendAudit({ teamId: team, taskId: task.taskId, auditKey: "a#1", at: "2026-11-01T00:00:00.000Z", action: "task.created", actor: "U1", details: {} });
    await store.appendAudit({ teamId: team, taskId: task.taskId, auditKey: "a#2", at: "2026-11-15T00:00:00.000Z", action: "error.L2", actor: "system", details: {} });
    await store.appendAudit({ teamId: team, taskId: task.taskId, auditKey: "a#3", at: "2026-12-02T00:00:00.000Z", action: "execution.completed", actor: "system", details: {} });
    await store.appendAudit({ teamId: `${team}x`, taskId: other.taskId, auditKey: "a#4", at: "2026-11-15T00:00:00.000Z", action: "task.created", actor: "U9", details: {} });
    const november = await store.listAuditByTeam(team, { since: "2026-11-01", until: "2026-11-30" });
    expect(november.map((a) => a.auditKey)).toEqual(["a#1", "a#2"]);
  });

  it("recent tasks of a workspace, newest first", async () => {
    const at = (iso: string) => new TaskStore(table.doc, table.tableName, () => new Date(iso));
    const older = await at("2026-11-01T00:00:00Z").createTask({ thread: thread(team), requesterId: "U1", requestText: "古い", pipelineExecutionName: "n" });
    const newer = await at("2026-11-02T00:00:00Z").createTask({ thread: thread(team), requesterId: "U1", requestText: "新しい", pipelineExecutionName: "n" });
    const recent = await store.listRecentTasks(team, 10);
    expect(recent.map((t) => t.taskId)).toEqual([newer.record.taskId, older.record.taskId]);
    expect(await store.listRecentTasks(team, 1)).toHaveLength(1);
  });
});
