import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { approve } from "../../lib/ingress/actions";
import { SlackMessages } from "../../lib/core/messages/ja";
import { entriesOf, path, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { decide, l1Ok, l2Ok, l3Ok, slackTexts } from "./fixtures";

/** Reject → regenerate with its guard rails, and approval waits that end visibly. */
let h: PipelineHarness;
beforeAll(async () => {
  h = await startPipelineHarness();
});
afterAll(async () => h.close());
beforeEach(() => {
  h.slack.reset();
  h.anthropic.requests.length = 0;
});

const userTextOf = (i: number) => JSON.stringify(h.anthropic.requests[i]?.body.messages ?? "");

describe("却下 → 再生成", () => {
  it("each rejection makes vN+1 with the previous version and the reason in the request; the 6th rejection shows the limit and makes no new version", async () => {
    h.anthropic.enqueue(l1Ok(), l2Ok("方針 v1"));
    const { execution, taskId } = h.startTask();
    for (let version = 1; version <= 6; version += 1) {
      if (version < 6) h.anthropic.enqueue(l2Ok(`方針 v${version + 1}`));
      await decide(h, taskId, "prompt", version, { reject: `理由 ${version}` });
      if (version < 6) {
        const next = version + 1;
        await h.local.waitFor(() => h.local.pendingTokens().find((p) => p.executionName === taskId && (p.payload as { version: number }).version === next), 10_000, `prompt v${next}`);
        // 前バージョン参照: previous text + the reason, always.
        const request = userTextOf(h.anthropic.requests.length - 1);
        expect(request).toContain(`方針 v${version}`);
        expect(request).toContain(`理由 ${version}`);
      }
    }
    await execution.done;
    expect(execution.status).toBe("SUCCEEDED");
    expect(path(execution).at(-1)).toBe("TaskClosed");
    expect(entriesOf(execution, "GeneratePrompt")).toBe(6);
    expect(entriesOf(execution, "NextPrompt")).toBe(5);
    const history = await h.store.loadHistory(taskId);
    expect(history.prompts.map((p) => [p.version, p.status])).toEqual([1, 2, 3, 4, 5, 6].map((v) => [v, "rejected"]));
    expect(history.prompts[1]?.regeneratedFor).toBe("理由 1");
    expect(history.task).toMatchObject({ status: "closed", closedReason: "regeneration_limit" });
    expect(history.audit.some((a) => a.action === "prompt.regeneration_limit")).toBe(true);
    expect(slackTexts(h).some((t) => t.includes(SlackMessages.regenerationLimit))).toBe(true);
    expect(h.anthropic.pending()).toBe(0);
  });

  it("Process rejection regenerates L3 with the previous steps and the reason; approving v2 starts the run", async () => {
    h.anthropic.enqueue(l1Ok(), l2Ok(), l3Ok(), l3Ok());
    const { execution, taskId } = h.startTask();
    await decide(h, taskId, "prompt", 1, "approve");
    await decide(h, taskId, "process", 1, { reject: "一覧取得は不要です" });
    await decide(h, taskId, "process", 2, "approve");
    await execution.done;
    expect(execution.status).toBe("SUCCEEDED");
    const l3Retry = userTextOf(3);
    expect(l3Retry).toContain("previous_steps");
    expect(l3Retry).toContain("一覧取得は不要です");
    const history = await h.store.loadHistory(taskId);
    expect(history.processes.map((p) => p.status)).toEqual(["rejected", "approved"]);
    expect(history.task.approvedProcessVersion).toBe(2);
    expect(history.executions[0]?.processVersion).toBe(2);
    const run = await h.local.waitFor(() => h.local.execution("ExecutionRun", `${taskId}-e1`));
    await run.done;
  });

  it("a double click on 承認 resumes the pipeline once (the second is a no-op)", async () => {
    h.anthropic.enqueue(l1Ok(), l2Ok());
    const { execution, taskId } = h.startTask();
    await h.local.waitForToken(taskId, "AwaitPromptApproval");
    const target = { taskId, kind: "prompt" as const, version: 1 };
    const [a, b] = await Promise.all([approve(h.actions, h.actor, target), approve(h.actions, h.actor, target)]);
    expect([a.outcome, b.outcome].sort()).toEqual(["applied", "noop"]);
    h.anthropic.enqueue(l3Ok());
    const token = await h.local.waitForToken(taskId, "AwaitProcessApproval");
    h.local.timeOutTask(token.token);
    await execution.done;
    expect(entriesOf(execution, "GenerateProcess")).toBe(1);
  });
});

describe("approval timeout (ends the task visibly)", () => {
  it("States.Timeout on the Prompt wait → version expired, task closed, the card says so", async () => {
    h.anthropic.enqueue(l1Ok(), l2Ok());
    const { execution, taskId } = h.startTask();
    const token = await h.local.waitForToken(taskId, "AwaitPromptApproval");
    h.local.timeOutTask(token.token);
    await execution.done;
    expect(execution.status).toBe("SUCCEEDED");
    expect(path(execution).slice(-3)).toEqual(["AwaitPromptApprovalExpired", "ExpirePromptApproval", "TaskClosed"]);
    const history = await h.store.loadHistory(taskId);
    expect(history.prompts[0]?.status).toBe("expired");
    expect(history.prompts[0]?.taskToken).toBeUndefined();
    expect(history.task).toMatchObject({ status: "closed", closedReason: "approval_expired" });
    expect(history.audit.some((a) => a.action === "prompt.approval_expired")).toBe(true);
    expect(slackTexts(h).some((t) => t.includes("承認期限"))).toBe(true);
    // A late click finds nothing to resume.
    const late = await approve(h.actions, h.actor, { taskId, kind: "prompt", version: 1 });
    expect(late.outcome).not.toBe("applied");
  });

  it("the synthesized wait carries the approval timeout (7 days by default)", () => {
    expect(h.machines.taskPipeline.States.AwaitPromptApproval?.TimeoutSeconds).toBe(7 * 24 * 3600);
    expect(h.machines.taskPipeline.States.AwaitProcessApproval?.TimeoutSeconds).toBe(7 * 24 * 3600);
  });
});
