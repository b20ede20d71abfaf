import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AuditLog } from "../../lib/store/audit-log";
import { createLogger } from "../../lib/core/observability/logger";
import { TaskStore } from "../../lib/store/task-store";
import { TruncatedResponseError } from "../../lib/core/errors/taxonomy";
import { startTestTable, type TestTable } from "../support/dynamo";

let table: TestTable;
let store: TaskStore;
beforeAll(async () => {
  table = await startTestTable();
  store = new TaskStore(table.doc, table.tableName);
});
afterAll(async () => table.close());

describe("audit log", () => {
  it("records a state change once and logs it as structured JSON", async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((c: string | Uint8Array) => (lines.push(String(c)), true));
    const audit = new AuditLog(store, createLogger("test"));
    const task = (await store.createTask({ thread: { teamId: "T9", channelId: "C1", messageTs: "1.000001" }, requesterId: "U1", requestText: "依頼", pipelineExecutionName: "n" })).record;
    const event = { teamId: "T9", taskId: task.taskId, action: "task.created", subject: "task", actor: "U1", layer: "L1" as const };
    expect((await audit.record(event)).applied).toBe(true);
    expect((await audit.record(event)).applied).toBe(false);
    spy.mockRestore();
    const logged = lines.filter((l) => l.includes('"task.created"'));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({ layer: "L1", taskId: task.taskId });
  });

  it("an error becomes error.<layer> with layer, error_type, error_message and the cause, secrets redacted", async () => {
    const lines: string[] = [];
    // Powertools writes ERROR lines to stderr.
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((c: string | Uint8Array) => (lines.push(String(c)), true));
    const audit = new AuditLog(store, createLogger("test"));
    const task = (await store.createTask({ thread: { teamId: "T9", channelId: "C1", messageTs: "1.000002" }, requesterId: "U1", requestText: "依頼", pipelineExecutionName: "n" })).record;
    const error = new TruncatedResponseError("reply cut off (stop_reason=max_tokens)", {
      cause: new Error("root cause"),
      details: { stopReason: "max_tokens", apiKey: "sk-ant-api03-zzzzzzzzzzzzzzzzzzzzzz" },
    });
    await audit.recordError({ teamId: "T9", taskId: task.taskId, layer: "L3", subject: "process#1", actor: "system", error });
    spy.mockRestore();
    const history = await store.loadHistory(task.taskId);
    expect(history.audit).toHaveLength(1);
    const entry = history.audit[0]!;
    expect(entry).toMatchObject({ action: "error.L3", layer: "L3", errorType: "TruncatedResponseError", errorMessage: "reply cut off (stop_reason=max_tokens)" });
    expect(entry.details).toMatchObject({ stopReason: "max_tokens", cause: { name: "Error", message: "root cause" } });
    expect(JSON.stringify(entry)).not.toContain("sk-ant-api03");
    const line = JSON.parse(lines.find((l) => l.includes("L3 failed"))!);
    expect(line).toMatchObject({ level: "ERROR", layer: "L3", error_type: "TruncatedResponseError", error_message: "reply cut off (stop_reason=max_tokens)" });
  });
});

describe("recordWith: an entry that rides its effect's write", () => {
  const event = (taskId: string) => ({ teamId: "T9", taskId, action: "task.analyzed", subject: "task", actor: "system:pipeline", layer: "L1" as const });

  it("returns the write's own result; an entry the write left missing is appended on its own", async () => {
    const audit = new AuditLog(store, createLogger("test"));
    const task = (await store.createTask({ thread: { teamId: "T9", channelId: "C1", messageTs: "1.000002" }, requesterId: "U1", requestText: "依頼", pipelineExecutionName: "n" })).record;
    const result = await audit.recordWith(event(task.taskId), async () => ({ record: "the effect's record", entry: "missing" as const }));
    expect(result).toEqual({ record: "the effect's record", entry: "missing" });
    expect((await store.loadHistory(task.taskId)).audit.map((a) => a.action)).toContain("task.analyzed");
  });

  it("a write that does not say what became of the entry is refused, not taken as done", async () => {
    const audit = new AuditLog(store, createLogger("test"));
    await expect(audit.recordWith(event("T9-C1-1_000003"), async () => ({ record: 1, entry: undefined }))).rejects.toThrow("did not say what became of it");
  });
});
