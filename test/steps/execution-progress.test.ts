import { afterAll, beforeAll, expect, it } from "vitest";
import { ev } from "../../dev/fakes/anthropic";
import { startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { runApprovedTask } from "./fixtures";

/**
 * Issue 16: progress is visible at the defaults. The ExecutionRun polls the session (Wait 3 s → PollSession); each
 * poll reads the new events into per-step progress and updates the Execution card once — only when what the
 * card shows changed — so a run of four polls shows each step as it goes, not 0 / N → 完了 in one update. The
 * strict Slack fake answers `ratelimited` past chat.update's rate: it never does here.
 */
let h: PipelineHarness;
beforeAll(async () => {
  h = await startPipelineHarness();
});
afterAll(async () => h.close());

const EMPLOYEES = JSON.stringify({ employees: [{ id: 1, display_name: "山田 太郎" }, { id: 2, display_name: "佐藤 花子" }] });

it("each poll that changes a step updates the card once; a poll that changes nothing sends nothing; 完了 shows the steps and the read", async () => {
  h.agents.scriptNextSession({
    polls: [
      { events: [ev.running(), ev.agentMessage("[step:s1] 従業員一覧を取得します"), ev.mcpToolUse("freee_hr_list_employees", { year: 2026, month: 12 })] },
      { events: [ev.mcpToolResult({ text: EMPLOYEES })] },
      { events: [ev.thinking()] },
      { events: [ev.agentMessage("[step:s2] 山田さんを特定します")] },
      { events: [ev.agentMessage("一覧から山田 太郎さん（ID 1）を特定しました。\n[result:done]"), ev.idle("end_turn")], usage: { input_tokens: 10, output_tokens: 5 } },
    ],
  });
  const { taskId, run } = await runApprovedTask(h);
  expect(run.status, String(run.cause)).toBe("SUCCEEDED");

  const cardTs = (await h.store.loadHistory(taskId)).executions[0]?.cardTs;
  const updates = h.slack.callsTo("chat.update").filter((c) => (c.body as { ts?: string }).ts === cardTs).map((c) => JSON.stringify((c.body as { blocks: unknown }).blocks));
  const running = updates.filter((u) => u.includes("実行中..."));
  // The session started: every step 待機. Poll 1: step 1 running with its tool; poll 2: step 1 done with its
  // result and no tool named; poll 3: nothing shown changed (no update); poll 4: step 2 running.
  expect(running).toHaveLength(4);
  expect(running.shift()).toContain("待機  1. 指定した年月に在籍する従業員の一覧を取得します\\n待機  2. エージェントの判断");
  expect(running[0]).toContain("実行中  1. 指定した年月に在籍する従業員の一覧を取得します");
  expect(running[0]).toContain("実行中のステップ: 1. ");
  expect(running[0]).not.toContain("freee_hr_list_employees");
  expect(running[1]).toContain("✓  1. 指定した年月に在籍する従業員の一覧を取得します — 従業員 2 件を取得しました");
  expect(running[1]).toContain("待機  2. エージェントの判断");
  expect(running[1]).not.toContain("実行中のステップ");
  expect(running[2]).toContain("実行中  2. エージェントの判断");
  const done = updates.at(-1)!;
  expect(done).toContain("完了");
  expect(done).toContain("✓  2. エージェントの判断");
  expect(done).toContain("*1. 従業員（2 件）*");
  expect(done).toContain("山田 太郎");
  expect(done).toContain("freee への書き込みはありません。");
  expect(h.slack.calls.filter((c) => c.error === "ratelimited")).toEqual([]);
});

it("a read longer than the card goes to the thread as a CSV (files upload v2); a refused upload is audited and the card says the rest is not shown", async () => {
  const many = JSON.stringify({ employees: Array.from({ length: 12 }, (_, i) => ({ id: i + 1, display_name: `社員 ${i + 1}` })) });
  const script = () => ({
    polls: [{ events: [ev.running(), ev.agentMessage("[step:s1]"), ev.mcpToolUse("freee_hr_list_employees", { year: 2026, month: 12 }), ev.mcpToolResult({ text: many }), ev.agentMessage("[step:s2]\n一覧を確認しました。\n[result:done]"), ev.idle("end_turn")], usage: { input_tokens: 1, output_tokens: 1 } }],
  });
  const runOnce = async () => {
    const { taskId, thread, run } = await runApprovedTask(h);
    expect(run.status, String(run.cause)).toBe("SUCCEEDED");
    const history = await h.store.loadHistory(taskId);
    const card = h.slack.workspace.messages.find((m) => m.ts === history.executions[0]?.cardTs);
    return { history, thread, card: JSON.stringify(card?.blocks) };
  };

  h.agents.scriptNextSession(script());
  const ok = await runOnce();
  const shared = h.slack.workspace.messages.find((m) => m.threadTs === ok.thread.messageTs && m.files !== undefined);
  expect(shared?.text).toBe("読み取り結果「従業員」全 12 件（CSV）");
  const file = h.slack.uploads.files.get(shared!.files![0]!.id)!;
  expect(file.content?.toString("utf8").split("\r\n")).toHaveLength(14); // header + 12 rows + the final line end
  expect(ok.history.executions[0]?.resultFiles).toEqual([{ stepId: "s1", fileId: file.id }]);
  expect(ok.card).toContain("ほか 2 件はスレッドの CSV ファイルにあります。");

  h.slack.failNext("files.getUploadURLExternal", { error: "missing_scope" });
  h.agents.scriptNextSession(script());
  const refused = await runOnce();
  expect(refused.history.executions[0]?.status).toBe("completed");
  expect(refused.history.executions[0]?.resultFiles).toEqual([]);
  expect(refused.card).toContain("ほか 2 件は表示していません。");
  expect(refused.history.audit.find((a) => a.action === "error.slack" && a.auditKey.includes("file#execution#1#s1"))).toBeDefined();
});
