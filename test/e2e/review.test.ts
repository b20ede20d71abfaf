import { describe, expect, it } from "vitest";
import { ActionMessages } from "../../lib/ingress/actions";
import { SlackMessages } from "../../lib/core/messages/ja";
import { l1Ok, l2Ok, l3Ok, L3_STEPS } from "../steps/fixtures";
import { auditActions, blockText, history, historyOf, settled, SlackUser, texts, waitFor, type E2E, useE2E, PAY_REQUEST as REQUEST } from "./support";

/**
 * End-to-end over HTTP (signed Slack deliveries to the local stack's /slack/events): the review loop
 * and the duplicate-delivery guards (docs/architecture.md, who may act). Each scenario asserts the DB state, the audit trail and
 * what the user saw (the Slack recorder).
 */
let e2e: E2E;
let user: SlackUser;
useE2E({}, (started) => ({ e2e, user } = started));

describe("e2e: review", { timeout: 60_000 }, () => {
  it("happy path: message → L1 → L2 approve → L3 approve → run → completed", async () => {
    e2e.anthropic.enqueue(l1Ok(), l2Ok(), l3Ok());
    const { ts, taskId, delivery } = await user.post(REQUEST);
    expect(delivery.status).toBe(200);
    expect((await user.approve(ts, taskId, "prompt", 1)).status).toBe(200);
    expect((await user.approve(ts, taskId, "process", 1)).status).toBe(200);
    await settled(e2e, taskId);

    const h = await historyOf(e2e, taskId);
    expect(h.task.status).toBe("completed");
    expect(h.prompts.map((p) => p.status)).toEqual(["approved"]);
    expect(h.processes.map((p) => p.status)).toEqual(["approved"]);
    expect(h.processes[0]?.steps?.map((s) => s.tool)).toEqual(L3_STEPS.map((s) => s.tool));
    expect(h.executions.map((x) => x.status)).toEqual(["completed"]);
    expect(auditActions(h)).toEqual([
      "task.created",
      "task.analyzed",
      "prompt.generated",
      "prompt.approval_requested",
      "prompt.approved",
      "process.generated",
      "process.previewed",
      "process.approval_requested",
      "process.approved",
      "execution.started",
      "execution.session_created",
      "execution.completed",
    ]);
    expect(h.audit.find((a) => a.action === "prompt.approved")?.actor).toBe(e2e.stack.sandbox.userId);

    expect(history(e2e, ts)).toEqual([
      "タスク: 解析中...",
      "タスク「山田さんの基本給変更」: 実行方針のレビュー中",
      "実行方針 v1: 生成中...",
      "実行方針 v1: 承認待ち",
      "実行方針 v1: 承認済み",
      "実行ステップ v1: 生成中...",
      "タスク「山田さんの基本給変更」: 実行ステップのレビュー中",
      "実行ステップ v1: 承認待ち",
      "実行ステップ v1: 承認済み",
      "実行 #1: 実行中",
      "タスク「山田さんの基本給変更」: 実行中",
      // A poll that changed nothing the card shows sends Slack nothing.
      "実行 #1: 完了",
      "タスク「山田さんの基本給変更」: 完了",
    ]);
    // The Task card's status line follows the task to its end.
    expect(texts(user.thread(ts))).toEqual(["タスク「山田さんの基本給変更」: 完了", "実行方針 v1: 承認済み", "実行ステップ v1: 承認済み", "実行 #1: 完了"]);
    expect(blockText(user.thread(ts).at(-1))).toContain("完了");
  });

  it("prompt rejected twice with reasons, then approved: v3 runs; each regeneration saw the reason", async () => {
    e2e.anthropic.enqueue(l1Ok(), l2Ok("方針 v1"), l2Ok("方針 v2"), l2Ok("方針 v3"), l3Ok());
    const { ts, taskId } = await user.post(REQUEST);
    expect((await user.reject(ts, taskId, "prompt", 1, "金額は月額で")).text).toBe("");
    expect((await user.reject(ts, taskId, "prompt", 2, "適用月を明記して")).text).toBe("");
    await user.approve(ts, taskId, "prompt", 3);
    await user.approve(ts, taskId, "process", 1);
    await settled(e2e, taskId);

    const h = await historyOf(e2e, taskId);
    expect(h.task.status).toBe("completed");
    expect(h.prompts.map((p) => [p.version, p.status, p.decision?.reason])).toEqual([
      [1, "rejected", "金額は月額で"],
      [2, "rejected", "適用月を明記して"],
      [3, "approved", undefined],
    ]);
    expect(auditActions(h).filter((a) => a.startsWith("prompt."))).toEqual([
      "prompt.generated",
      "prompt.approval_requested",
      "prompt.rejected",
      "prompt.generated",
      "prompt.approval_requested",
      "prompt.rejected",
      "prompt.generated",
      "prompt.approval_requested",
      "prompt.approved",
    ]);
    const l2Bodies = e2e.anthropic.requests
      .map((r) => JSON.stringify((r.body as { messages?: unknown }).messages))
      .filter((b) => b.includes("<rejection_reason>"))
      .slice(-2);
    expect(l2Bodies[0]).toContain("金額は月額で");
    expect(l2Bodies[1]).toContain("適用月を明記して");
    // One Prompt card, updated through the versions.
    expect(texts(user.thread(ts))).toEqual(["タスク「山田さんの基本給変更」: 完了", "実行方針 v3: 承認済み", "実行ステップ v1: 承認済み", "実行 #1: 完了"]);
    expect(history(e2e, ts)).toEqual([
      "タスク: 解析中...",
      "タスク「山田さんの基本給変更」: 実行方針のレビュー中",
      "実行方針 v1: 生成中...",
      "実行方針 v1: 承認待ち",
      // The reject submit acks after its write and SendTaskSuccess; the regeneration's card is the next update.
      "実行方針 v2: 再生成中...",
      "実行方針 v2: 承認待ち",
      "実行方針 v3: 再生成中...",
      "実行方針 v3: 承認待ち",
      "実行方針 v3: 承認済み",
      "実行ステップ v1: 生成中...",
      "タスク「山田さんの基本給変更」: 実行ステップのレビュー中",
      "実行ステップ v1: 承認待ち",
      "実行ステップ v1: 承認済み",
      "実行 #1: 実行中",
      "タスク「山田さんの基本給変更」: 実行中",
      // A poll that changed nothing the card shows sends Slack nothing.
      "実行 #1: 完了",
      "タスク「山田さんの基本給変更」: 完了",
    ]);
  });

  it("an empty reason is refused inside the modal, nothing changes", async () => {
    e2e.anthropic.enqueue(l1Ok(), l2Ok(), l2Ok("方針 v2"));
    const { ts, taskId } = await user.post(REQUEST);
    const ack = await user.reject(ts, taskId, "prompt", 1, "   ");
    expect(JSON.parse(ack.text)).toEqual({ response_action: "errors", errors: { reason: ActionMessages.reasonRequired } });
    expect((await historyOf(e2e, taskId)).prompts.map((p) => p.status)).toEqual(["pending_approval"]);
    // Leave the task closed for the next scenario: reject with a reason, let v2 wait.
    await user.reject(ts, taskId, "prompt", 1, "理由あり");
    await waitFor("prompt v2 pending", async () => (await historyOf(e2e, taskId)).prompts[1]?.status === "pending_approval");
  });

  it("process rejected to the limit: 5 regenerations, the 6th rejection closes the task with the message", async () => {
    e2e.anthropic.enqueue(l1Ok(), l2Ok(), ...Array.from({ length: 6 }, () => l3Ok()));
    const { ts, taskId } = await user.post(REQUEST);
    await user.approve(ts, taskId, "prompt", 1);
    for (let v = 1; v <= 6; v++) await user.reject(ts, taskId, "process", v, `却下 ${v}`);
    await settled(e2e, taskId);

    const h = await historyOf(e2e, taskId);
    expect(h.task.status).toBe("closed");
    expect(h.processes.map((p) => p.status)).toEqual(Array(6).fill("rejected"));
    expect(h.executions).toEqual([]);
    expect(auditActions(h).filter((a) => a === "process.rejected")).toHaveLength(6);
    expect(auditActions(h)).toContain("process.regeneration_limit");
    const shown = user.thread(ts).map((m) => `${m.text}\n${blockText(m)}`).join("\n");
    expect(shown).toContain(SlackMessages.regenerationLimit);
  });

  it("Slack redelivery storm: the same message 6 times (new event_ids, retry headers) → one task, one L1 call, one card set", async () => {
    e2e.anthropic.enqueue(l1Ok(), l2Ok());
    const l1Before = e2e.anthropic.requests.length;
    const { ts, taskId } = await user.post(REQUEST);
    const redeliveries = await Promise.all([1, 2, 3, 1, 2].map((n) => user.redeliver(ts, REQUEST, n)));
    expect(redeliveries.map((d) => d.status)).toEqual([200, 200, 200, 200, 200]);
    await user.button(ts, "approve_version", { taskId, kind: "prompt", version: 1 });

    const pipelines = [...e2e.stack.local.executions.values()].filter((x) => x.name === taskId);
    expect(pipelines).toHaveLength(1);
    expect(e2e.anthropic.requests.length - l1Before).toBe(2); // one L1, one L2
    const h = await historyOf(e2e, taskId);
    expect(auditActions(h).filter((a) => a === "task.created")).toHaveLength(1);
    expect(texts(user.thread(ts))).toEqual(["タスク「山田さんの基本給変更」: 実行方針のレビュー中", "実行方針 v1: 承認待ち"]);
    // Close it so its approval wait does not outlive the suite.
    e2e.anthropic.enqueue(l2Ok("v2"));
    await user.reject(ts, taskId, "prompt", 1, "テスト終了");
    await waitFor("prompt v2 pending", async () => (await historyOf(e2e, taskId)).prompts[1]?.status === "pending_approval");
  });

  it("double-click storm: 承認 clicked 8 times at once → one decision, one audit, one L3 call; the rest are told", async () => {
    e2e.anthropic.enqueue(l1Ok(), l2Ok(), l3Ok());
    const { ts, taskId } = await user.post(REQUEST);
    const button = await user.button(ts, "approve_version", { taskId, kind: "prompt", version: 1 });
    const l3Before = e2e.anthropic.requests.length;
    const ephemeralsBefore = user.ephemerals().length;
    const clicks = await Promise.all(Array.from({ length: 8 }, () => user.clickFound(button, "approve_version")));
    expect(clicks.map((c) => c.status)).toEqual(Array(8).fill(200));
    await user.button(ts, "approve_version", { taskId, kind: "process", version: 1 });

    const h = await historyOf(e2e, taskId);
    expect(h.prompts.map((p) => p.status)).toEqual(["approved"]);
    expect(auditActions(h).filter((a) => a === "prompt.approved")).toHaveLength(1);
    expect(e2e.anthropic.requests.length - l3Before).toBe(1);
    expect(h.processes).toHaveLength(1);
    // The 7 losers are told (once the decision is written, a click is refused as already decided).
    await waitFor("7 refusals", () => user.ephemerals().length - ephemeralsBefore === 7);
    for (const m of user.ephemerals().slice(ephemeralsBefore)) expect(m.text).toBe(ActionMessages.alreadyDecided);

    // Finish the task so nothing is left waiting.
    await user.approve(ts, taskId, "process", 1);
    await settled(e2e, taskId);
    expect((await historyOf(e2e, taskId)).task.status).toBe("completed");
  });
});

