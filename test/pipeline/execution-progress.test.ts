import { afterAll, beforeAll, expect, it } from "vitest";
import { ev } from "../../dev/fakes/anthropic";
import { startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { decide, l1Ok, l2Ok, l3Ok, runExecution } from "./fixtures";

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
  h.anthropic.enqueue(l1Ok(), l2Ok(), l3Ok());
  const { execution, taskId } = h.startTask();
  await decide(h, taskId, "prompt", 1, "approve");
  await decide(h, taskId, "process", 1, "approve");
  await execution.done;
  const run = await runExecution(h, taskId);
  await run.done;
  expect(run.status, String(run.cause)).toBe("SUCCEEDED");

  const cardTs = (await h.store.loadHistory(taskId)).executions[0]?.cardTs;
  const updates = h.slack.callsTo("chat.update").filter((c) => (c.body as { ts?: string }).ts === cardTs).map((c) => JSON.stringify((c.body as { blocks: unknown }).blocks));
  const running = updates.filter((u) => u.includes("実行中..."));
  // The session started: every step 待機. Poll 1: step 1 running with its tool; poll 2: step 1 done with its
  // result and no tool named; poll 3: nothing shown changed (no update); poll 4: step 2 running.
  expect(running).toHaveLength(4);
  expect(running.shift()).toContain("待機  1. 指定した年月に在籍する従業員の一覧を取得します\\n待機  2. エージェントの判断");
  expect(running[0]).toContain("実行中  1. 指定した年月に在籍する従業員の一覧を取得します");
  expect(running[0]).toContain("実行中のツール: `freee_hr_list_employees`");
  expect(running[1]).toContain("✓  1. 指定した年月に在籍する従業員の一覧を取得します — 従業員 2 件を取得しました");
  expect(running[1]).toContain("待機  2. エージェントの判断");
  expect(running[1]).not.toContain("実行中のツール");
  expect(running[2]).toContain("実行中  2. エージェントの判断");
  const done = updates.at(-1)!;
  expect(done).toContain("完了");
  expect(done).toContain("✓  2. エージェントの判断");
  expect(done).toContain("*1. 従業員（2 件）*");
  expect(done).toContain("山田 太郎");
  expect(done).toContain("freee への書き込みはありません。");
  expect(h.slack.calls.filter((c) => c.error === "ratelimited")).toEqual([]);
});
