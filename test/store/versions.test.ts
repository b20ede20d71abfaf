import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { Keys } from "../../lib/store/table";
import { StateConflictError } from "../../lib/core/errors/taxonomy";
import { useStore } from "./helpers";

const s = useStore();

describe("prompt / process versions", () => {
  it("create → content → approval → decision; each step once", async () => {
    const task = await s.newTask();
    const created = await s.store.createVersion("prompt", task.taskId, 1);
    expect(created.applied).toBe(true);
    expect(created.record.status).toBe("generating");
    expect((await s.store.getTaskOrThrow(task.taskId)).currentPromptVersion).toBe(1);

    const saved = await s.store.saveVersionContent("prompt", task.taskId, 1, { text: "山田さんの基本給を更新します。" });
    expect(saved.applied).toBe(true);
    const savedAgain = await s.store.saveVersionContent("prompt", task.taskId, 1, { text: "別の本文" });
    expect(savedAgain.applied).toBe(false);
    expect((savedAgain.record as { text?: string }).text).toBe("山田さんの基本給を更新します。");

    const opened = await s.store.openApproval("prompt", task.taskId, 1, "token-1");
    expect(opened.record.status).toBe("pending_approval");
    // A retried approval task brings a new token: it replaces the old one while still pending.
    const reopened = await s.store.openApproval("prompt", task.taskId, 1, "token-2");
    expect(reopened.record.taskToken).toBe("token-2");

    const decision = { decision: "approved" as const, actorId: "U1", decidedAt: new Date().toISOString() };
    const decided = await s.store.transitionVersion("prompt", task.taskId, 1, "approved", { from: ["pending_approval"], set: { decision }, returnOld: true });
    expect(decided.applied).toBe(true);
    expect(decided.record.taskToken).toBe("token-2");
    const twice = await s.store.transitionVersion("prompt", task.taskId, 1, "approved", { from: ["pending_approval"], set: { decision } });
    expect(twice.applied).toBe(false);
    await expect(s.store.openApproval("prompt", task.taskId, 1, "token-3")).rejects.toBeInstanceOf(StateConflictError);
  });

  it("10 concurrent decisions on one version: exactly one applies (double click)", async () => {
    const task = await s.newTask();
    await s.store.createVersion("process", task.taskId, 1, { basedOnPromptVersion: 1 });
    await s.store.saveVersionContent("process", task.taskId, 1, { steps: [{ stepId: "s1", order: 1, tool: "freee_hr_list_employees", toolInput: { year: 2026, month: 12 } }] });
    await s.store.openApproval("process", task.taskId, 1, "tok");
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        s.store.transitionVersion("process", task.taskId, 1, i % 2 === 0 ? "approved" : "rejected", {
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
    const task = await s.newTask();
    await s.store.createVersion("prompt", task.taskId, 1);
    await s.store.createVersion("prompt", task.taskId, 2, { regeneratedFor: "金額が違います" });
    const retried = await s.store.createVersion("prompt", task.taskId, 1);
    expect(retried.applied).toBe(false);
    const t = await s.store.getTaskOrThrow(task.taskId);
    expect(t.currentPromptVersion).toBe(2);
    expect((await s.store.getVersionOrThrow("prompt", task.taskId, 2)).regeneratedFor).toBe("金額が違います");
  });

  it("reopenApproval undoes only the decision the caller wrote (its decidedAt), restoring the token", async () => {
    const task = await s.newTask();
    await s.store.createVersion("prompt", task.taskId, 1);
    await s.store.saveVersionContent("prompt", task.taskId, 1, { text: "方針" });
    await s.store.openApproval("prompt", task.taskId, 1, "tok-1");
    const decidedAt = "2026-11-30T00:00:00.000Z";
    await s.store.transitionVersion("prompt", task.taskId, 1, "approved", { from: ["pending_approval"], set: { decision: { decision: "approved", actorId: "U1", decidedAt } }, remove: ["taskToken"] });
    const other = await s.store.reopenApproval("prompt", task.taskId, 1, { taskToken: "tok-1", decidedAt: "2026-11-30T00:00:01.000Z" });
    expect(other.applied).toBe(false);
    expect(other.record.status).toBe("approved");
    const mine = await s.store.reopenApproval("prompt", task.taskId, 1, { taskToken: "tok-1", decidedAt });
    expect(mine.applied).toBe(true);
    expect(mine.record).toMatchObject({ status: "pending_approval", taskToken: "tok-1" });
    expect(mine.record.decision).toBeUndefined();
  });

  it("content cannot be saved to a version that is no longer generating", async () => {
    const task = await s.newTask();
    await s.store.createVersion("prompt", task.taskId, 1);
    await s.store.transitionVersion("prompt", task.taskId, 1, "failed", { set: { errorName: "EmptyResponseError" } });
    await expect(s.store.saveVersionContent("prompt", task.taskId, 1, { text: "late" })).rejects.toBeInstanceOf(StateConflictError);
  });

  it("approval cannot open without content (nothing empty is ever put up for approval)", async () => {
    const task = await s.newTask();
    await s.store.createVersion("prompt", task.taskId, 1);
    await expect(s.store.openApproval("prompt", task.taskId, 1, "tok")).rejects.toBeInstanceOf(StateConflictError);
  });
});

describe("process preview and the approval's owner", () => {
  const step = { stepId: "s1", order: 1, tool: "freee_hr_update_employee_basic_pay_rule", toolInput: { company_id: 1, employee_id: 7, amount: 300000 } };
  const preview = { status: "ready" as const, previewedAt: "2026-12-01T00:00:00.000Z", reads: 1, steps: [] };

  async function plannedProcess() {
    const task = await s.newTask();
    await s.store.createVersion("process", task.taskId, 1, { basedOnPromptVersion: 1 });
    await s.store.saveVersionContent("process", task.taskId, 1, { steps: [step] });
    return task;
  }

  it("saveProcessPreview stores the preview once; a retry gets the first back and freee is not read again", async () => {
    const task = await plannedProcess();
    const first = await s.store.saveProcessPreview(task.taskId, 1, { steps: [step], preview, approvableVia: ["card", "full_plan"] });
    expect(first).toMatchObject({ applied: true, record: { preview, approvableVia: ["card", "full_plan"] } });
    const retried = await s.store.saveProcessPreview(task.taskId, 1, { steps: [step], preview: { ...preview, reads: 9 }, approvableVia: ["full_plan"] });
    expect(retried.applied).toBe(false);
    expect(retried.record).toMatchObject({ preview: { reads: 1 }, approvableVia: ["card", "full_plan"] });
  });

  it("saveProcessPreview refuses a version without steps or no longer generating (StateConflictError)", async () => {
    const task = await s.newTask();
    await s.store.createVersion("process", task.taskId, 1, { basedOnPromptVersion: 1 });
    await expect(s.store.saveProcessPreview(task.taskId, 1, { steps: [step], preview, approvableVia: ["card"] })).rejects.toThrow(/without steps/);
    const decided = await plannedProcess();
    await s.store.transitionVersion("process", decided.taskId, 1, "failed", { set: { errorName: "MalformedOutputError" } });
    await expect(s.store.saveProcessPreview(decided.taskId, 1, { steps: [step], preview, approvableVia: ["card"] })).rejects.toBeInstanceOf(StateConflictError);
  });

  it("openApproval with an owner puts the workspace and requester on the version (what writeDecision's condition reads)", async () => {
    const task = await plannedProcess();
    const opened = await s.store.openApproval("process", task.taskId, 1, "tok", { teamId: "T1", requesterId: "U1" });
    expect(opened.record).toMatchObject({ status: "pending_approval", taskToken: "tok" });
    const item = (await s.table.doc.send(new GetCommand({ TableName: s.table.tableName, Key: Keys.version(task.taskId, "process", 1) }))).Item;
    expect(item).toMatchObject({ teamId: "T1", requesterId: "U1" });
  });
});
