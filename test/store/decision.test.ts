import { describe, expect, it } from "vitest";
import { writeDecision, type DecisionWrite } from "../../lib/store/decision";
import { useStore } from "./helpers";

const s = useStore();

describe("writeDecision: one conditional write on the version, the refusal says why", () => {
  const step = { stepId: "s1", order: 1, tool: "freee_hr_list_employees", toolInput: { year: 2026, month: 12 } };

  async function pending(owner: { teamId: string; requesterId: string } | undefined, via?: ("card" | "full_plan")[]) {
    const task = await s.newTask();
    await s.store.createVersion("process", task.taskId, 1, { basedOnPromptVersion: 1 });
    await s.store.saveVersionContent("process", task.taskId, 1, { steps: [step] });
    if (via !== undefined) {
      await s.store.saveProcessPreview(task.taskId, 1, { steps: [step], preview: { status: "ready", previewedAt: "2026-12-01T00:00:00.000Z", reads: 0, steps: [] }, approvableVia: via });
    }
    await s.store.openApproval("process", task.taskId, 1, "tok-1", owner);
    return task;
  }
  const decide = (taskId: string, over: Partial<DecisionWrite> & { actorId?: string } = {}) =>
    writeDecision(s.table.doc, s.table.tableName, {
      kind: "process",
      taskId,
      version: 1,
      teamId: "T1",
      asAdmin: false,
      decision: { decision: "approved", actorId: over.actorId ?? "U1", decidedAt: "2026-12-01T00:00:02.000Z" },
      ...over,
    });

  it("applies once with the token; the second click is already_decided with the audit entry the first promised", async () => {
    const task = await pending({ teamId: "T1", requesterId: "U1" });
    expect(await decide(task.taskId)).toEqual({ applied: true, taskToken: "tok-1" });
    const again = await decide(task.taskId);
    expect(again).toMatchObject({ applied: false, reason: "already_decided", promised: { action: "process.approved", actor: "U1", subject: "process#1" } });
    const decided = await s.store.getVersionOrThrow("process", task.taskId, 1);
    expect(decided.status).toBe("approved");
    // The token stays on the decided item so that a lost reply's retry can still resume (decision-lost-reply.test.ts).
    expect(decided.taskToken).toBe("tok-1");
  });

  it("a stranger is not_requester, an admin may decide, another workspace sees not_found", async () => {
    const task = await pending({ teamId: "T1", requesterId: "U1" });
    expect(await decide(task.taskId, { actorId: "U2" })).toEqual({ applied: false, reason: "not_requester" });
    expect(await decide(task.taskId, { teamId: "T2", asAdmin: true })).toEqual({ applied: false, reason: "not_found" });
    expect((await decide(task.taskId, { actorId: "UADMIN", asAdmin: true })).applied).toBe(true);
  });

  it("a version opened without its owner is unowned; a version that does not exist is not_found", async () => {
    const task = await pending(undefined);
    expect(await decide(task.taskId)).toEqual({ applied: false, reason: "unowned" });
    expect(await decide(task.taskId, { version: 9 })).toEqual({ applied: false, reason: "not_found" });
  });

  it("a Process approval from where the plan was not seen whole is not_approvable, with the item", async () => {
    const task = await pending({ teamId: "T1", requesterId: "U1" }, ["full_plan"]);
    const refused = await decide(task.taskId, { via: "card" });
    expect(refused).toMatchObject({ applied: false, reason: "not_approvable", old: { approvableVia: ["full_plan"], status: "pending_approval" } });
    expect((await decide(task.taskId, { via: "full_plan" })).applied).toBe(true);
  });
});
