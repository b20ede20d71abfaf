import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SlackMessages } from "../../lib/core/messages/ja";
import { errorReply, messageReply } from "../../dev/fakes/anthropic";
import { path, retriesOf, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { L1_REPLY, decide, expectPipelineFailure, l1Answer, l1Ok, l2Ok } from "./fixtures";

/**
 * Error table conformance, TaskPipeline L1 / L2: each fault is injected into the
 * real handler's dependency (the scripted Anthropic server) and the outcome is read from the local run.
 */
let h: PipelineHarness;
beforeAll(async () => {
  h = await startPipelineHarness();
});
afterAll(async () => h.close());
beforeEach(() => {
  h.slack.reset();
});

const err500 = () => errorReply(500, "api_error", "internal error");
const err429 = () => errorReply(429, "rate_limit_error", "rate limited", { "retry-after": "1" });

describe("分類 / L1: Message → Task", () => {
  it("Anthropic API エラー (5xx): retried 3 times with backoff, then caught → L1 failure message in the thread", async () => {
    h.anthropic.enqueue(err500(), err500(), err500(), err500());
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, { state: "AnalyzeTask", retries: 3, errorName: "UpstreamServerError", layer: "L1", message: SlackMessages.l1Failed });
  });

  it("レートリミット: backoff retries (max 3), then caught", async () => {
    h.anthropic.enqueue(err429(), err429(), err429(), err429());
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, { state: "AnalyzeTask", retries: 3, errorName: "RateLimitedError", layer: "L1", message: SlackMessages.l1Failed });
  });

  it("一時的エラー → 自動リトライ → 成功 → 正常続行: one 429, then the Task is read and L2 runs", async () => {
    h.anthropic.enqueue(err429(), l1Ok(), l2Ok());
    const { execution, taskId } = h.startTask();
    const token = await h.local.waitForToken(taskId, "AwaitPromptApproval");
    expect(retriesOf(execution, "AnalyzeTask")).toBe(1);
    const task = await h.store.getTaskOrThrow(taskId);
    expect(task.status).toBe("prompt_review");
    expect(task.spec?.title).toBe(L1_REPLY.title);
    h.local.timeOutTask(token.token);
    await execution.done;
  });

  it("JSON パースエラー: retried once, then caught", async () => {
    h.anthropic.enqueue(messageReply('{"title": "山田'), messageReply('{"title": "山田'));
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, { state: "AnalyzeTask", retries: 1, errorName: "MalformedOutputError", layer: "L1", message: SlackMessages.l1Failed });
  });

  it("必須キー欠落: retried once, then caught", async () => {
    const { intent: _drop, ...withoutIntent } = L1_REPLY;
    h.anthropic.enqueue(l1Answer(withoutIntent), l1Answer(withoutIntent));
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, { state: "AnalyzeTask", retries: 1, errorName: "MalformedOutputError", layer: "L1", message: SlackMessages.l1Failed });
  });

  it("APITimeoutError: retried 2 times, then caught", async () => {
    const slow = () => ({ ...l1Ok(), delayMs: 1_000 });
    h.anthropic.enqueue(slow(), slow(), slow());
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, { state: "AnalyzeTask", retries: 2, errorName: "UpstreamTimeoutError", layer: "L1", message: SlackMessages.l1Failed });
  });

  it("BadRequestError (400): caught without retry", async () => {
    h.anthropic.enqueue(errorReply(400, "invalid_request_error", "bad request"));
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, { state: "AnalyzeTask", retries: 0, errorName: "BadRequestError", layer: "L1", message: SlackMessages.l1Failed });
  });

  it("致命的エラー / AuthenticationError: FatalConfigError, no retry, caught and shown", async () => {
    h.anthropic.enqueue(errorReply(401, "authentication_error", "invalid x-api-key"));
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, { state: "AnalyzeTask", retries: 0, errorName: "FatalConfigError", layer: "L1", message: SlackMessages.l1Failed });
  });
});

describe("L2: Task → Prompt", () => {
  it("Anthropic API エラー: L1 と同様のリトライ (3), then the Prompt card shows the failure", async () => {
    h.anthropic.enqueue(l1Ok(), err500(), err500(), err500(), err500());
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, {
      state: "GeneratePrompt",
      retries: 3,
      errorName: "UpstreamServerError",
      layer: "L2",
      message: SlackMessages.l2Failed,
      version: { kind: "prompt", version: 1 },
    });
  });

  it("空レスポンス: retried once → failed → Prompt カードを失敗表示", async () => {
    h.anthropic.enqueue(l1Ok(), messageReply({ texts: ["  "] }), messageReply({ texts: [] }));
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, {
      state: "GeneratePrompt",
      retries: 1,
      errorName: "EmptyResponseError",
      layer: "L2",
      message: SlackMessages.l2Failed,
      version: { kind: "prompt", version: 1 },
    });
  });

  it("truncated (max_tokens): retried once, then caught; nothing stored as done", async () => {
    const cut = () => messageReply({ texts: ["目的: 山田さんの"], stopReason: "max_tokens" });
    h.anthropic.enqueue(l1Ok(), cut(), cut());
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, {
      state: "GeneratePrompt",
      retries: 1,
      errorName: "TruncatedResponseError",
      layer: "L2",
      message: SlackMessages.l2Failed,
      version: { kind: "prompt", version: 1 },
    });
    const prompt = await h.store.getVersionOrThrow("prompt", taskId, 1);
    expect(prompt.text).toBeUndefined();
  });

  it("refusal: caught without retry", async () => {
    h.anthropic.enqueue(l1Ok(), messageReply({ texts: [], stopReason: "refusal", stopDetails: { type: "refusal", category: "cyber" } }));
    const { execution, taskId } = h.startTask();
    await expectPipelineFailure(h, execution, taskId, {
      state: "GeneratePrompt",
      retries: 0,
      errorName: "RefusedResponseError",
      layer: "L2",
      message: SlackMessages.l2Failed,
      version: { kind: "prompt", version: 1 },
    });
  });

  it("Slack refuses a card post (invalid_auth → AuthError) → audited as error.slack, the pipeline goes on (rejection → v2)", async () => {
    h.anthropic.enqueue(l1Ok(), l2Ok());
    h.slack.failNext("chat.postMessage", { error: "invalid_auth", times: 1 });
    const { execution, taskId } = h.startTask();
    await decide(h, taskId, "prompt", 1, { reject: "もっと具体的に" });
    h.anthropic.enqueue(l2Ok("目的: 具体化した実行方針"));
    const token = await h.local.waitForToken(taskId, "AwaitPromptApproval");
    expect((token.payload as { version: number }).version).toBe(2);
    h.local.timeOutTask(token.token);
    await execution.done;
    expect(path(execution)).toContain("NextPrompt");
    const audit = (await h.store.loadHistory(taskId)).audit.filter((a) => a.action === "error.slack");
    expect(audit.length).toBeGreaterThan(0);
  });
});
