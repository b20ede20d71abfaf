import { SendTaskSuccessCommand, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ActionMessages, approve, cancelExecution, reject, rerunExecution } from "../../../lib/ingress/actions";
import { SlackMessages } from "../../../lib/core/messages/ja";
import { startTestTable, type TestTable } from "../../support/dynamo";
import { makeDeps, taskAwaitingPrompt, taskWithExecution } from "./harness";

let table: TestTable;
beforeAll(async () => {
  table = await startTestTable();
});
afterAll(async () => table.close());

const requester = { teamId: "T1", userId: "UREQ" };

describe("approve / reject (CONTRACTS Approval)", () => {
  it("approve: conditional write, one audit entry, SendTaskSuccess with the token read from the DB", async () => {
    const { deps, store, sfnMock, refreshed } = makeDeps(table);
    const task = await taskAwaitingPrompt(store, { token: "TOKEN-A" });
    const result = await approve(deps, requester, { taskId: task.taskId, kind: "prompt", version: 1 });
    expect(result.outcome).toBe("applied");
    const calls = sfnMock.commandCalls(SendTaskSuccessCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input.taskToken).toBe("TOKEN-A");
    expect(JSON.parse(calls[0]!.args[0].input.output!)).toEqual({ decision: "approved", actorId: "UREQ" });
    const version = await store.getVersionOrThrow("prompt", task.taskId, 1);
    expect(version.status).toBe("approved");
    expect(version.decision).toMatchObject({ decision: "approved", actorId: "UREQ" });
    // The ack path is the write and SendTaskSuccess: the resumed step audits the decision and refreshes the card.
    expect((await store.loadHistory(task.taskId)).audit).toEqual([]);
    expect(refreshed).toEqual([]);
  });

  it("10 concurrent approve clicks → one decision, one SendTaskSuccess", async () => {
    const { deps, store, sfnMock } = makeDeps(table);
    const task = await taskAwaitingPrompt(store);
    const results = await Promise.all(Array.from({ length: 10 }, () => approve(deps, requester, { taskId: task.taskId, kind: "prompt", version: 1 })));
    expect(results.filter((r) => r.outcome === "applied")).toHaveLength(1);
    expect(sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(1);
    expect(results.filter((r) => r.outcome === "noop")).toHaveLength(9);
  });

  it("approve then reject: the second click changes nothing", async () => {
    const { deps, store, sfnMock } = makeDeps(table);
    const task = await taskAwaitingPrompt(store);
    await approve(deps, requester, { taskId: task.taskId, kind: "prompt", version: 1 });
    const second = await reject(deps, requester, { taskId: task.taskId, kind: "prompt", version: 1 }, "やっぱりだめ");
    expect(second.outcome).toBe("noop");
    expect((await store.getVersionOrThrow("prompt", task.taskId, 1)).status).toBe("approved");
    expect(sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(1);
  });

  it("reject with a reason: SendTaskSuccess carries it; the version keeps it (HandleRejection audits it)", async () => {
    const { deps, store, sfnMock } = makeDeps(table);
    const task = await taskAwaitingPrompt(store);
    const result = await reject(deps, requester, { taskId: task.taskId, kind: "prompt", version: 1 }, "  金額の確認を追加して  ");
    expect(result.outcome).toBe("applied");
    const output = JSON.parse(sfnMock.commandCalls(SendTaskSuccessCommand)[0]!.args[0].input.output!);
    expect(output).toEqual({ decision: "rejected", reason: "金額の確認を追加して", actorId: "UREQ" });
    const version = await store.getVersionOrThrow("prompt", task.taskId, 1);
    expect(version.decision?.reason).toBe("金額の確認を追加して");
    expect((await store.loadHistory(task.taskId)).audit).toEqual([]);
  });

  it("reject with an empty / whitespace-only reason is refused and changes nothing", async () => {
    const { deps, store, sfnMock } = makeDeps(table);
    const task = await taskAwaitingPrompt(store);
    const result = await reject(deps, requester, { taskId: task.taskId, kind: "prompt", version: 1 }, " \n\u3000\t ");
    expect(result).toEqual({ outcome: "refused", message: ActionMessages.reasonRequired });
    expect((await store.getVersionOrThrow("prompt", task.taskId, 1)).status).toBe("pending_approval");
    expect(sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(0);
  });

  it("a reason past the modal's max_length is refused by the action too (a crafted submit), nothing written", async () => {
    const { deps, store, sfnMock } = makeDeps(table);
    const task = await taskAwaitingPrompt(store);
    const result = await reject(deps, requester, { taskId: task.taskId, kind: "prompt", version: 1 }, "a".repeat(2001));
    expect(result).toEqual({ outcome: "refused", message: ActionMessages.reasonTooLong });
    expect((await store.getVersionOrThrow("prompt", task.taskId, 1)).status).toBe("pending_approval");
    expect(sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(0);
  });

  it("a click on a version that does not exist changes nothing", async () => {
    const { deps, store, sfnMock } = makeDeps(table);
    const task = await taskAwaitingPrompt(store);
    const result = await approve(deps, requester, { taskId: task.taskId, kind: "prompt", version: 7 });
    expect(result).toEqual({ outcome: "refused", message: ActionMessages.notFound });
    expect(sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(0);
  });

  it("unauthorised user → refusal, nothing changes", async () => {
    const { deps, store, sfnMock } = makeDeps(table);
    const task = await taskAwaitingPrompt(store);
    const stranger = { teamId: "T1", userId: "USTRANGER" };
    expect(await approve(deps, stranger, { taskId: task.taskId, kind: "prompt", version: 1 })).toEqual({ outcome: "refused", message: ActionMessages.notPermitted });
    expect((await store.getVersionOrThrow("prompt", task.taskId, 1)).status).toBe("pending_approval");
    expect(sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(0);
  });

  it("deployment admins (ADMIN_USER_IDS) and workspace admins (team settings) may act", async () => {
    const { deps, store, settings } = makeDeps(table);
    const a = await taskAwaitingPrompt(store);
    expect((await approve(deps, { teamId: "T1", userId: "UADMIN" }, { taskId: a.taskId, kind: "prompt", version: 1 })).outcome).toBe("applied");
    const b = await taskAwaitingPrompt(store);
    expect((await approve(deps, { teamId: "T1", userId: "UTEAMADMIN" }, { taskId: b.taskId, kind: "prompt", version: 1 })).outcome).toBe("refused");
    await settings.save("T1", ["UTEAMADMIN"], "UADMIN");
    expect((await approve(deps, { teamId: "T1", userId: "UTEAMADMIN" }, { taskId: b.taskId, kind: "prompt", version: 1 })).outcome).toBe("applied");
  });

  it("an action whose team does not own the task changes nothing", async () => {
    const { deps, store, sfnMock } = makeDeps(table);
    const task = await taskAwaitingPrompt(store, { teamId: "T1" });
    const other = { teamId: "T2", userId: "UREQ" };
    expect(await approve(deps, other, { taskId: task.taskId, kind: "prompt", version: 1 })).toEqual({ outcome: "refused", message: ActionMessages.notFound });
    expect((await store.getVersionOrThrow("prompt", task.taskId, 1)).status).toBe("pending_approval");
    expect(sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(0);
  });

  it("an approval wait that already timed out: the decision stands, no crash", async () => {
    const { deps, store, sfnMock } = makeDeps(table);
    const task = await taskAwaitingPrompt(store);
    sfnMock.on(SendTaskSuccessCommand).rejects(Object.assign(new Error("timed out"), { name: "TaskTimedOut" }));
    expect((await approve(deps, requester, { taskId: task.taskId, kind: "prompt", version: 1 })).outcome).toBe("applied");
  });
});

describe("a repeated click repairs a lost audit confirmation", () => {
  it("approve: the decision write promises the entry; nothing resumed wrote it; the second click writes it (once)", async () => {
    const { deps, store } = makeDeps(table);
    const task = await taskAwaitingPrompt(store);
    const target = { taskId: task.taskId, kind: "prompt" as const, version: 1 };
    expect((await approve(deps, requester, target)).outcome).toBe("applied");
    const version = await store.getVersionOrThrow("prompt", task.taskId, 1);
    expect(version.decisionAudit).toMatchObject({ action: "prompt.approved", subject: "prompt#1", actor: "UREQ", at: version.decision?.decidedAt });
    expect((await store.loadHistory(task.taskId)).audit).toEqual([]);
    expect((await approve(deps, requester, target)).outcome).toBe("noop");
    expect((await approve(deps, requester, target)).outcome).toBe("noop");
    const audit = (await store.loadHistory(task.taskId)).audit;
    expect(audit.map((a) => [a.action, a.actor, a.at])).toEqual([["prompt.approved", "UREQ", version.decision?.decidedAt]]);
  });

  it("cancel: the cancel write promises execution.cancelled; a second click writes it (once)", async () => {
    const { deps, store } = makeDeps(table);
    const task = await taskWithExecution(store, "running");
    expect((await cancelExecution(deps, requester, { taskId: task.taskId, executionNo: 1 })).outcome).toBe("applied");
    expect((await store.getExecutionOrThrow(task.taskId, 1)).cancelAudit).toMatchObject({ action: "execution.cancelled", actor: "UREQ" });
    expect((await store.loadHistory(task.taskId)).audit).toEqual([]);
    await cancelExecution(deps, requester, { taskId: task.taskId, executionNo: 1 });
    await cancelExecution(deps, requester, { taskId: task.taskId, executionNo: 1 });
    expect((await store.loadHistory(task.taskId)).audit.map((a) => a.action)).toEqual(["execution.cancelled"]);
  });
});

describe("a decision the pipeline did not hear is not lost", () => {
  it("SendTaskSuccess throttled: the version is pending again with its token, the error is audited; the next click resumes", async () => {
    const { deps, store, sfnMock } = makeDeps(table);
    const task = await taskAwaitingPrompt(store, { token: "TOKEN-resume" });
    sfnMock.on(SendTaskSuccessCommand).rejectsOnce(Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException" })).resolves({});
    const target = { taskId: task.taskId, kind: "prompt" as const, version: 1 };

    await expect(approve(deps, requester, target)).rejects.toMatchObject({ name: "ThrottledError" });
    const reopened = await store.getVersionOrThrow("prompt", task.taskId, 1);
    expect(reopened.status).toBe("pending_approval");
    expect(reopened.taskToken).toBe("TOKEN-resume");
    expect(reopened.decision).toBeUndefined();
    let history = await store.loadHistory(task.taskId);
    expect(history.audit.map((a) => a.action)).toEqual(["error.ingress"]);

    expect((await approve(deps, requester, target)).outcome).toBe("applied");
    const calls = sfnMock.commandCalls(SendTaskSuccessCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.args[0].input.taskToken).toBe("TOKEN-resume");
    expect((await store.getVersionOrThrow("prompt", task.taskId, 1)).status).toBe("approved");
    history = await store.loadHistory(task.taskId);
    // The reopen is audited here (compensation path); the decision itself is the resumed step's to audit.
    expect(history.audit.map((a) => a.action).sort()).toEqual(["error.ingress"]);
    expect((await store.getVersionOrThrow("prompt", task.taskId, 1)).decision?.actorId).toBe("UREQ");
  });
});

describe("cancel", () => {
  it("実行中のみ: a running execution is cancelled (cancelledBy/At) and its card refreshed from the state just read; the run ends the task and audits", async () => {
    const { deps, store, refreshed } = makeDeps(table);
    const task = await taskWithExecution(store, "running");
    const result = await cancelExecution(deps, requester, { taskId: task.taskId, executionNo: 1 });
    expect(result.outcome).toBe("applied");
    const execution = await store.getExecutionOrThrow(task.taskId, 1);
    expect(execution.status).toBe("cancelled");
    expect(execution.cancelledBy).toBe("UREQ");
    expect(execution.cancelledAt).toBeDefined();
    expect(execution.cancelFinalizedAt).toBeUndefined(); // → the card shows 中止中...
    // ExecutionRun's next poll ends the task `cancelled` and audits (test/e2e/run-control.test.ts).
    expect((await store.getTaskOrThrow(task.taskId)).status).toBe("executing");
    expect(refreshed).toEqual([{ taskId: task.taskId, subject: { kind: "execution", executionNo: 1 } }]);
  });

  it.each(["pending", "completed", "failed"] as const)("実行中のみ: a %s execution cannot be cancelled; its stale card is drawn again from the table", async (status) => {
    const { deps, store, refreshed } = makeDeps(table);
    const task = await taskWithExecution(store, status);
    const result = await cancelExecution(deps, requester, { taskId: task.taskId, executionNo: 1 });
    expect(result).toEqual({ outcome: "refused", message: ActionMessages.staleCancel });
    expect(ActionMessages.staleCancel).toContain(ActionMessages.cancelOnlyRunning);
    expect((await store.getExecutionOrThrow(task.taskId, 1)).status).toBe(status);
    expect(refreshed.map((r) => r.subject)).toEqual([{ kind: "execution", executionNo: 1 }, { kind: "task" }]);
  });

  it("即時反映: a double cancel click cancels once", async () => {
    const { deps, store } = makeDeps(table);
    const task = await taskWithExecution(store, "running");
    const results = await Promise.all(Array.from({ length: 5 }, () => cancelExecution(deps, requester, { taskId: task.taskId, executionNo: 1 })));
    expect(results.filter((r) => r.outcome === "applied")).toHaveLength(1);
    expect(results.filter((r) => r.outcome === "noop" || r.outcome === "refused")).toHaveLength(4);
    expect((await store.getExecutionOrThrow(task.taskId, 1)).status).toBe("cancelled");
  });

  it("unauthorised user cannot cancel", async () => {
    const { deps, store } = makeDeps(table);
    const task = await taskWithExecution(store, "running");
    expect((await cancelExecution(deps, { teamId: "T1", userId: "UX" }, { taskId: task.taskId, executionNo: 1 })).outcome).toBe("refused");
    expect((await store.getExecutionOrThrow(task.taskId, 1)).status).toBe("running");
  });
});

describe("rerun", () => {
  it("新 Execution / 同一 Process: a failed run reruns as Execution 2 of the same approved Process", async () => {
    const { deps, store, sfnMock } = makeDeps(table);
    const task = await taskWithExecution(store, "failed");
    const result = await rerunExecution(deps, requester, { taskId: task.taskId, executionNo: 1 });
    expect(result.outcome).toBe("applied");
    const history = await store.loadHistory(task.taskId);
    expect(history.executions.map((e) => [e.executionNo, e.status, e.processVersion])).toEqual([
      [1, "failed", 1],
      [2, "pending", 1],
    ]);
    expect(history.task.status).toBe("executing");
    const starts = sfnMock.commandCalls(StartExecutionCommand);
    expect(starts).toHaveLength(1);
    expect(starts[0]!.args[0].input.name).toBe(`${task.taskId}-e2`);
  });

  it("中止後の再実行: a cancelled run can be rerun", async () => {
    const { deps, store } = makeDeps(table);
    const task = await taskWithExecution(store, "cancelled");
    expect((await rerunExecution(deps, requester, { taskId: task.taskId, executionNo: 1 })).outcome).toBe("applied");
    expect((await store.getExecutionOrThrow(task.taskId, 2)).status).toBe("pending");
  });

  it("a timed-out run can be rerun", async () => {
    const { deps, store } = makeDeps(table);
    const task = await taskWithExecution(store, "timed_out");
    expect((await rerunExecution(deps, requester, { taskId: task.taskId, executionNo: 1 })).outcome).toBe("applied");
  });

  it("再実行上限: 3 reruns, then the rerun limit message and no new Execution", async () => {
    const { deps, store } = makeDeps(table);
    const task = await taskWithExecution(store, "failed");
    for (let n = 2; n <= 4; n++) {
      expect((await rerunExecution(deps, requester, { taskId: task.taskId, executionNo: n - 1 })).outcome).toBe("applied");
      await store.transitionExecution(task.taskId, n, "running");
      await store.transitionExecution(task.taskId, n, "failed");
      await store.transitionTask(task.taskId, "failed");
    }
    const result = await rerunExecution(deps, requester, { taskId: task.taskId, executionNo: 4 });
    expect(result).toEqual({ outcome: "refused", message: SlackMessages.rerunLimit });
    expect((await store.loadHistory(task.taskId)).executions).toHaveLength(4);
  });

  it("a double rerun click starts one run", async () => {
    const { deps, store, sfnMock } = makeDeps(table);
    const task = await taskWithExecution(store, "failed");
    await Promise.all(Array.from({ length: 5 }, () => rerunExecution(deps, requester, { taskId: task.taskId, executionNo: 1 })));
    const history = await store.loadHistory(task.taskId);
    expect(history.executions).toHaveLength(2);
    expect(new Set(sfnMock.commandCalls(StartExecutionCommand).map((c) => c.args[0].input.name))).toEqual(new Set([`${task.taskId}-e2`]));
    // One promise on the one Execution 2; its entry is the run's first step's to write (audit-before-effect.test.ts).
    expect(history.executions.find((e) => e.executionNo === 2)?.startAudit).toMatchObject({ action: "execution.started", subject: "execution#2", actor: "UREQ" });
    expect(history.audit.filter((a) => a.auditKey === "execution.started#execution#2")).toHaveLength(0);
  });

  it("a running or completed task cannot be rerun into a second concurrent run", async () => {
    const { deps, store } = makeDeps(table);
    const done = await taskWithExecution(store, "completed");
    expect(await rerunExecution(deps, requester, { taskId: done.taskId, executionNo: 1 })).toEqual({ outcome: "refused", message: ActionMessages.staleRerun });
    expect((await store.loadHistory(done.taskId)).executions).toHaveLength(1);
  });

  it("unauthorised user cannot rerun", async () => {
    const { deps, store } = makeDeps(table);
    const task = await taskWithExecution(store, "failed");
    expect(await rerunExecution(deps, { teamId: "T1", userId: "UX" }, { taskId: task.taskId, executionNo: 1 })).toEqual({ outcome: "refused", message: ActionMessages.notPermitted });
    expect((await store.loadHistory(task.taskId)).executions).toHaveLength(1);
  });
});
