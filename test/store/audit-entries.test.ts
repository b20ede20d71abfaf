import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { Keys } from "../../lib/store/table";
import { TaskStore } from "../../lib/store/task-store";
import { useStore } from "./helpers";

const s = useStore();

describe("audit and history", () => {
  let team: string;
  beforeEach(() => {
    team = `TA${s.nextSeq()}`;
  });

  it("an audit entry is written once per key, however often the step runs", async () => {
    const task = await s.newTask(team);
    const entry = { teamId: team, taskId: task.taskId, auditKey: "prompt.rejected#prompt#1", at: new Date().toISOString(), action: "prompt.rejected", actor: "U1", details: { reason: "違う" } };
    expect((await s.store.appendAudit(entry)).applied).toBe(true);
    expect((await s.store.appendAudit({ ...entry, at: new Date().toISOString() })).applied).toBe(false);
    const history = await s.store.loadHistory(task.taskId);
    expect(history.audit).toHaveLength(1);
  });

  it("the whole history of a task comes back from its partition", async () => {
    const task = await s.newTask(team);
    await s.store.createVersion("prompt", task.taskId, 1);
    await s.store.createVersion("process", task.taskId, 1, { basedOnPromptVersion: 1 });
    await s.store.appendAudit({ teamId: team, taskId: task.taskId, auditKey: "task.created#task", at: new Date().toISOString(), action: "task.created", actor: "U1", details: {} });
    const history = await s.store.loadHistory(task.taskId);
    expect(history.task.taskId).toBe(task.taskId);
    expect(history.prompts.map((p) => p.version)).toEqual([1]);
    expect(history.processes.map((p) => p.version)).toEqual([1]);
    expect(history.audit.map((a) => a.action)).toEqual(["task.created"]);
  });

  it("cardsOnly: the task, versions and executions from one sort-key range, without the audit entries or write records", async () => {
    const task = await s.newTask(team);
    await s.store.createVersion("prompt", task.taskId, 1);
    await s.store.createVersion("process", task.taskId, 1, { basedOnPromptVersion: 1 });
    await s.store.createExecution(task.taskId, { executionNo: 1, processVersion: 1, startedBy: "U1" });
    await s.store.appendAudit({ teamId: team, taskId: task.taskId, auditKey: "task.created#task", at: new Date().toISOString(), action: "task.created", actor: "U1", details: {} });
    // A write record (lib/store/write-ledger.ts) sorts after PROMPT#: outside the range, and not a card's business.
    await s.table.doc.send(new PutCommand({ TableName: s.table.tableName, Item: { ...Keys.toolWrite(task.taskId, 1, "s1"), state: "done" } }));
    const cards = await s.store.loadHistory(task.taskId, { cardsOnly: true });
    expect(cards.task.taskId).toBe(task.taskId);
    expect([cards.prompts.length, cards.processes.length, cards.executions.length, cards.audit.length]).toEqual([1, 1, 1, 0]);
    expect((await s.store.loadHistory(task.taskId)).audit).toHaveLength(1);
  });

  it("audit entries list by workspace and time window (GSI), other workspaces excluded", async () => {
    const task = await s.newTask(team);
    const other = await s.newTask(`${team}x`);
    await s.store.appendAudit({ teamId: team, taskId: task.taskId, auditKey: "a#1", at: "2026-11-01T00:00:00.000Z", action: "task.created", actor: "U1", details: {} });
    await s.store.appendAudit({ teamId: team, taskId: task.taskId, auditKey: "a#2", at: "2026-11-15T00:00:00.000Z", action: "error.L2", actor: "system", details: {} });
    await s.store.appendAudit({ teamId: team, taskId: task.taskId, auditKey: "a#3", at: "2026-12-02T00:00:00.000Z", action: "execution.completed", actor: "system", details: {} });
    await s.store.appendAudit({ teamId: `${team}x`, taskId: other.taskId, auditKey: "a#4", at: "2026-11-15T00:00:00.000Z", action: "task.created", actor: "U9", details: {} });
    const november = await s.store.listAuditByTeam(team, { since: "2026-11-01", until: "2026-11-30" });
    expect(november.map((a) => a.auditKey)).toEqual(["a#1", "a#2"]);
  });

  it("recent tasks of a workspace, newest first", async () => {
    const at = (iso: string) => new TaskStore(s.table.doc, s.table.tableName, () => new Date(iso));
    const older = await at("2026-11-01T00:00:00Z").createTask({ thread: s.thread(team), requesterId: "U1", requestText: "古い", pipelineExecutionName: "n" });
    const newer = await at("2026-11-02T00:00:00Z").createTask({ thread: s.thread(team), requesterId: "U1", requestText: "新しい", pipelineExecutionName: "n" });
    const recent = await s.store.listRecentTasks(team, 10);
    expect(recent.map((t) => t.taskId)).toEqual([newer.record.taskId, older.record.taskId]);
    expect(await s.store.listRecentTasks(team, 1)).toHaveLength(1);
  });
});
