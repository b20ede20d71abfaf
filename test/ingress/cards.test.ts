import { describe, expect, it } from "vitest";
import { ActionIds, renderCard, type Card } from "../../lib/ingress/cards";
import { SlackMessages } from "../../lib/core/messages/ja";
import { baseTask, execution, history, processVersion, prompt, STEPS, TASK_ID } from "./fixtures";

const limits = { maxReruns: 3 };

function allText(card: Card): string {
  return JSON.stringify(card.blocks) + card.text;
}
function buttons(card: Card): { action_id: string; value: string }[] {
  return card.blocks.flatMap((b) => (b.type === "actions" ? (b.elements as { action_id: string; value: string }[]) : []));
}
function expectNoTokenInButtons(card: Card) {
  for (const b of buttons(card)) {
    expect(b.value.length).toBeLessThan(2000);
    expect(b.value).not.toMatch(/token/i);
    expect(Object.keys(JSON.parse(b.value)).sort()).toEqual(expect.arrayContaining(["taskId"]));
  }
}

describe("task card", () => {
  it("analyzing shows 解析中", () => {
    const card = renderCard(history(), { kind: "task" }, limits);
    expect(allText(card)).toContain("解析中...");
    expect(allText(card)).toContain("山田さんの入社手続き");
  });
  it("L1 failure shows the user message", () => {
    const card = renderCard(history({ task: baseTask({ status: "failed", failure: { layer: "L1", errorName: "MalformedOutputError", at: "x" } }) }), { kind: "task" }, limits);
    expect(allText(card)).toContain(SlackMessages.l1Failed);
  });
  it("escapes user text", () => {
    const card = renderCard(history({ task: baseTask({ requestText: "<!channel> & co" }) }), { kind: "task" }, limits);
    expect(allText(card)).not.toContain("<!channel>");
  });
  it("escapes L1's reply to a message that is no request, in the blocks and the notification text", () => {
    const card = renderCard(history({ task: baseTask({ status: "answered", reply: "<!channel> どうぞ" }) }), { kind: "task" }, limits);
    expect(allText(card)).toContain("&lt;!channel&gt; どうぞ");
    expect(`${card.text}${allText(card)}`).not.toContain("<!channel>");
  });
});

describe("prompt / process card", () => {
  const pending = history({
    task: baseTask({ status: "prompt_review", currentPromptVersion: 2 }),
    prompts: [prompt(1, { status: "rejected" }), prompt(2, { status: "pending_approval", text: "従業員を登録する", taskToken: "SECRET-TASK-TOKEN", regeneratedFor: "部署を入れて" })],
  });

  it("generating", () => {
    const card = renderCard(history({ task: baseTask({ status: "prompt_review", currentPromptVersion: 1 }), prompts: [prompt(1)] }), { kind: "prompt" }, limits);
    expect(allText(card)).toContain("生成中...");
    expect(buttons(card)).toHaveLength(0);
  });

  it("waiting for approval: vN with [承認] [却下], ids only in the buttons", () => {
    const card = renderCard(pending, { kind: "prompt" }, limits);
    expect(allText(card)).toContain("v2");
    expect(allText(card)).toContain("承認待ち");
    const b = buttons(card);
    expect(b.map((x) => x.action_id)).toEqual([ActionIds.approve, ActionIds.reject]);
    expect(JSON.parse(b[0]!.value)).toEqual({ taskId: TASK_ID, kind: "prompt", version: 2 });
    expect(allText(card)).not.toContain("SECRET-TASK-TOKEN");
    expectNoTokenInButtons(card);
  });

  it("approved", () => {
    const h = history({
      task: baseTask({ status: "process_review", currentProcessVersion: 1 }),
      processes: [processVersion(1, { status: "approved", steps: STEPS, decision: { decision: "approved", actorId: "UREQ", decidedAt: "x" } })],
    });
    const card = renderCard(h, { kind: "process" }, limits);
    expect(allText(card)).toContain("承認済み");
    expect(allText(card)).toContain("freee_hr_create_employee");
    expect(buttons(card)).toHaveLength(0);
  });

  it("rejected → regenerating", () => {
    const h = history({
      task: baseTask({ status: "prompt_review", currentPromptVersion: 1 }),
      prompts: [prompt(1, { status: "rejected", text: "案", decision: { decision: "rejected", reason: "金額が違う", actorId: "UREQ", decidedAt: "x" } })],
    });
    const text = allText(renderCard(h, { kind: "prompt" }, limits));
    expect(text).toContain("却下");
    expect(text).toContain("金額が違う");
    expect(text).toContain("再生成中");
  });

  it("the pointer already on v2 before v2 is written: the card keeps showing v1 rejected → regenerating", () => {
    const h = history({
      task: baseTask({ status: "prompt_review", currentPromptVersion: 2 }),
      prompts: [prompt(1, { status: "rejected", text: "案", decision: { decision: "rejected", reason: "金額が違う", actorId: "UREQ", decidedAt: "x" } })],
    });
    const card = renderCard(h, { kind: "prompt" }, limits);
    expect(card.text).toBe("実行方針 v1: 却下 → 再生成中...");
  });

  it("regenerating version shows the reason it was made for", () => {
    const h = history({ task: baseTask({ status: "prompt_review", currentPromptVersion: 2 }), prompts: [prompt(2, { regeneratedFor: "部署を入れて" })] });
    expect(allText(renderCard(h, { kind: "prompt" }, limits))).toContain("部署を入れて");
  });

  it("failed shows the user message of its layer", () => {
    const h = history({ task: baseTask({ status: "failed", currentProcessVersion: 1 }), processes: [processVersion(1, { status: "failed", errorName: "MalformedOutputError" })] });
    expect(allText(renderCard(h, { kind: "process" }, limits))).toContain(SlackMessages.l3Failed);
    const p = history({ task: baseTask({ status: "failed", currentPromptVersion: 1 }), prompts: [prompt(1, { status: "failed" })] });
    expect(allText(renderCard(p, { kind: "prompt" }, limits))).toContain(SlackMessages.l2Failed);
  });

  it("limit reached shows the regeneration limit message", () => {
    const h = history({
      task: baseTask({ status: "closed", closedReason: "regeneration_limit", currentPromptVersion: 6 }),
      prompts: [prompt(6, { status: "rejected", text: "案", decision: { decision: "rejected", reason: "だめ", actorId: "UREQ", decidedAt: "x" } })],
    });
    const card = renderCard(h, { kind: "prompt" }, limits);
    expect(allText(card)).toContain(SlackMessages.regenerationLimit);
    expect(allText(card)).not.toContain("再生成中");
  });

  it("a regeneration limit configured to 2 shows 「2 回」 on the Prompt and Task cards", () => {
    const h = history({
      task: baseTask({ status: "closed", closedReason: "regeneration_limit", currentPromptVersion: 3 }),
      prompts: [prompt(3, { status: "rejected", text: "案", decision: { decision: "rejected", reason: "だめ", actorId: "UREQ", decidedAt: "x" } })],
    });
    expect(allText(renderCard(h, { kind: "prompt" }, limits))).toContain("最大試行回数（2 回）に達しました。");
    expect(allText(renderCard(h, { kind: "task" }, limits))).toContain("最大試行回数（2 回）に達しました。");
  });

  it("approval expired", () => {
    const h = history({ task: baseTask({ status: "closed", closedReason: "approval_expired", currentPromptVersion: 1 }), prompts: [prompt(1, { status: "expired", text: "案" })] });
    const card = renderCard(h, { kind: "prompt" }, limits);
    expect(allText(card)).toContain("承認期限が切れました");
    expect(buttons(card)).toHaveLength(0);
  });
});

describe("execution card", () => {
  const base = (status: string, executionCount = 1) => baseTask({ status: status as never, executionCount, approvedProcessVersion: 1 });
  const procs = [processVersion(1, { status: "approved", steps: STEPS })];

  it("running shows progress and [中止]", () => {
    const h = history({
      task: base("executing"),
      processes: procs,
      executions: [execution(1, { status: "running", progress: { seenEventIds: [], completedSteps: 1, toolErrors: [], currentTool: "freee_hr_create_employee" } })],
    });
    const card = renderCard(h, { kind: "execution", executionNo: 1 }, limits);
    expect(allText(card)).toContain("1 / 2");
    expect(buttons(card).map((b) => b.action_id)).toEqual([ActionIds.cancel]);
    expect(JSON.parse(buttons(card)[0]!.value)).toEqual({ taskId: TASK_ID, executionNo: 1 });
    expectNoTokenInButtons(card);
  });

  it("cancelled but not finalised shows 中止中...", () => {
    const h = history({ task: base("cancelled"), processes: procs, executions: [execution(1, { status: "cancelled", cancelledBy: "UREQ", cancelledAt: "x" })] });
    const card = renderCard(h, { kind: "execution", executionNo: 1 }, limits);
    expect(allText(card)).toContain("中止中...");
    expect(buttons(card)).toHaveLength(0);
  });

  it("cancelled and finalised shows 中止 with [再実行]", () => {
    const h = history({ task: base("cancelled"), processes: procs, executions: [execution(1, { status: "cancelled", cancelledBy: "UREQ", cancelledAt: "x", cancelFinalizedAt: "y" })] });
    const card = renderCard(h, { kind: "execution", executionNo: 1 }, limits);
    expect(allText(card)).toContain("中止");
    expect(allText(card)).not.toContain("中止中");
    expect(buttons(card).map((b) => b.action_id)).toEqual([ActionIds.rerun]);
  });

  it("completed shows the result", () => {
    const h = history({ task: base("completed"), processes: procs, executions: [execution(1, { status: "completed", resultSummary: "山田太郎さんを登録しました" })] });
    const card = renderCard(h, { kind: "execution", executionNo: 1 }, limits);
    expect(allText(card)).toContain("完了");
    expect(allText(card)).toContain("山田太郎さんを登録しました");
    expect(buttons(card)).toHaveLength(0);
  });

  it("failed shows the L4 message and [再実行] while reruns remain", () => {
    const h = history({ task: base("failed"), processes: procs, executions: [execution(1, { status: "failed", errorName: "AgentRunFailedError" })] });
    const card = renderCard(h, { kind: "execution", executionNo: 1 }, limits);
    expect(allText(card)).toContain(SlackMessages.l4Failed);
    expect(buttons(card).map((b) => b.action_id)).toEqual([ActionIds.rerun]);
    expectNoTokenInButtons(card);
  });

  it("timed out shows the timeout message", () => {
    const h = history({ task: base("failed"), processes: procs, executions: [execution(1, { status: "timed_out" })] });
    expect(allText(renderCard(h, { kind: "execution", executionNo: 1 }, limits))).toContain(SlackMessages.l4TimedOut);
  });

  it("freee auth failure shows the connection message", () => {
    const h = history({ task: base("failed"), processes: procs, executions: [execution(1, { status: "failed", errorName: "AuthError" })] });
    expect(allText(renderCard(h, { kind: "execution", executionNo: 1 }, limits))).toContain(SlackMessages.freeeConnectionFailed);
  });

  it("no [再実行] once the reruns are used up: the rerun limit message instead", () => {
    const h = history({ task: base("failed", 4), processes: procs, executions: [execution(4, { status: "failed" })] });
    const card = renderCard(h, { kind: "execution", executionNo: 4 }, limits);
    expect(buttons(card)).toHaveLength(0);
    expect(allText(card)).toContain(SlackMessages.rerunLimit);
  });

  it("an older execution's card has no [再実行]", () => {
    const h = history({ task: base("executing", 2), processes: procs, executions: [execution(1, { status: "failed" }), execution(2, { status: "running" })] });
    expect(buttons(renderCard(h, { kind: "execution", executionNo: 1 }, limits))).toHaveLength(0);
  });
});
