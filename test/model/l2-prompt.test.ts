import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { BadRequestError, EmptyResponseError, UpstreamServerError } from "../../lib/core/errors/taxonomy";
import { L2_SYSTEM_PROMPT, runL2Prompt } from "../../lib/model/l2-prompt";
import { errorReply, messageReply } from "../../dev/fakes/anthropic";
import { caught, expectLayerRequest, NOW, onlyRequest, PROMPT_TEXT, REQUEST_TEXT, TASK, useLayerHarness, userText } from "./helpers";

/** L2: Task → Prompt, and regeneration (previous version + reason, always). */
const h = useLayerHarness();

describe("L2 request", () => {
  it("carries the strong model, the cached Japanese system prompt, effort, no JSON format, the task and the request", async () => {
    h.fake.enqueue(messageReply(`\n${PROMPT_TEXT}\n`));
    const result = await runL2Prompt(h.deps("L2"), { task: TASK, requestText: REQUEST_TEXT, now: NOW });
    const req = onlyRequest(h.fake);
    expectLayerRequest(req, h.settings, "L2", L2_SYSTEM_PROMPT);
    expect(req.body.model).toBe("claude-sonnet-4-6");
    expect(req.body.output_config).toEqual({ effort: "medium" });
    expect(L2_SYSTEM_PROMPT).toContain("実行方針");
    const user = userText(req);
    expect(user).toContain(`<task>\n${JSON.stringify(TASK, null, 2)}\n</task>`);
    expect(user).toContain(`<request>\n${REQUEST_TEXT}\n</request>`);
    expect(user).not.toContain("<previous_prompt>");
    expect(user).not.toContain("<rejection_reason>");
    expect(result.value).toBe(PROMPT_TEXT);
  });
});

describe("L2: Task → Prompt", () => {
  it("Anthropic API エラー → as L1: UpstreamServerError (transient), cause kept", async () => {
    h.fake.enqueue(errorReply(503, "api_error", "unavailable"));
    const err = await caught(runL2Prompt(h.deps("L2"), { task: TASK, now: NOW }));
    expect(err).toBeInstanceOf(UpstreamServerError);
    expect(err.cause).toBeInstanceOf(Anthropic.InternalServerError);
    onlyRequest(h.fake);
  });

  it("空レスポンス → EmptyResponseError (Step Functions retries once, then the Prompt card shows the failure)", async () => {
    h.fake.enqueue(messageReply({ texts: [""] }));
    const err = await caught(runL2Prompt(h.deps("L2"), { task: TASK, now: NOW }));
    expect(err).toBeInstanceOf(EmptyResponseError);
    expect(err.name).toBe("EmptyResponseError");
    onlyRequest(h.fake);
  });
});

describe("regeneration after a rejection", () => {
  it("前バージョン参照: the previous prompt text and the rejection reason are both in the request", async () => {
    const reason = "変更前に現在の基本給を確認する手順を入れてください";
    h.fake.enqueue(messageReply(`修正点: 現在の基本給を確認する手順を追加しました。\n${PROMPT_TEXT}`));
    const result = await runL2Prompt(h.deps("L2"), {
      task: TASK,
      now: NOW,
      regeneration: { previousPromptText: PROMPT_TEXT, rejectionReason: reason },
    });
    const req = onlyRequest(h.fake);
    expectLayerRequest(req, h.settings, "L2", L2_SYSTEM_PROMPT);
    const user = userText(req);
    expect(user).toContain(`<previous_prompt>\n${PROMPT_TEXT}\n</previous_prompt>`);
    expect(user).toContain(`<rejection_reason>\n${reason}\n</rejection_reason>`);
    // The system prompt (cached, identical every call) tells the model what to do with them.
    expect(L2_SYSTEM_PROMPT).toContain("却下理由に**必ず**対処");
    expect(result.value.startsWith("修正点:")).toBe(true);
  });

  it("却下理由必須: an empty rejection reason is refused before any model call (BadRequestError)", async () => {
    const err = await caught(
      runL2Prompt(h.deps("L2"), { task: TASK, now: NOW, regeneration: { previousPromptText: PROMPT_TEXT, rejectionReason: " " } }),
    );
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).details).toMatchObject({ layer: "L2", missing: "rejection reason" });
    expect(h.fake.requests).toHaveLength(0);
  });

  it("前バージョン参照: a regeneration without the previous prompt text is refused (BadRequestError)", async () => {
    const err = await caught(
      runL2Prompt(h.deps("L2"), { task: TASK, now: NOW, regeneration: { previousPromptText: "", rejectionReason: "理由" } }),
    );
    expect(err).toBeInstanceOf(BadRequestError);
    expect(h.fake.requests).toHaveLength(0);
  });
});
