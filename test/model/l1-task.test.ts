import Anthropic from "@anthropic-ai/sdk";
import { core } from "zod/mini";
import { describe, expect, it } from "vitest";
import { BadRequestError, EmptyResponseError, MalformedOutputError, RateLimitedError, UpstreamServerError } from "../../lib/core/errors/taxonomy";
import { L1_OUTPUT, L1_SYSTEM_PROMPT, runL1Task } from "../../lib/model/l1-task";
import { errorReply, jsonReply, messageReply } from "../../dev/fakes/anthropic";
import { caught, expectLayerRequest, NOW, onlyRequest, REQUEST_TEXT, useLayerHarness, userText } from "./helpers";

/** L1: Message → Task, one test per row, plus what the request carries. */
const h = useLayerHarness();
const run = (text = REQUEST_TEXT) => runL1Task(h.deps("L1"), { text, now: NOW });

const TASK_REPLY = {
  title: "山田さんの基本給変更",
  intent: "山田さんの基本給を 2026 年 12 月から月額 30 万円に変更する。",
  domain: "hr",
  parameters: [
    { name: "employee_name", value: "山田" },
    { name: "new_basic_pay", value: 300000 },
    { name: "effective_year", value: 2026 },
    { name: "effective_month", value: 12 },
  ],
  missingInformation: [],
};
/** L1's whole answer for a request: the decision, no reply, the task. */
const answer = (task: Record<string, unknown> = TASK_REPLY) => ({ kind: "request", reply: null, task });
const spec = (result: Awaited<ReturnType<typeof run>>) => {
  if (result.value.kind !== "request") throw new Error(`L1 read no request: ${JSON.stringify(result.value)}`);
  return result.value.spec;
};

describe("L1 request", () => {
  it("carries the fast model, the system prompt (too short for Haiku's cache: no mark, nothing cached), the TaskSpec output format, today's date in Tokyo and the message", async () => {
    h.fake.enqueue(jsonReply(answer(), { usage: { input_tokens: 900, output_tokens: 80 } }));
    const result = await run();
    const req = onlyRequest(h.fake);
    expectLayerRequest(req, h.settings, "L1", L1_SYSTEM_PROMPT);
    expect(req.body.model).toBe("claude-haiku-4-5");
    expect(req.body.output_config).toEqual({ format: L1_OUTPUT.format });
    expect(req.body.output_config.format.schema.required).toEqual(["kind", "reply", "task"]);
    expect(req.body.output_config.format.schema.properties.task.anyOf[0].required).toEqual(["title", "intent", "domain", "parameters", "missingInformation"]);
    expect(userText(req)).toContain("<today>\n2026-11-30\n</today>");
    expect(userText(req)).toContain(`<message>\n${REQUEST_TEXT}\n</message>`);
    expect(result.usage).toEqual({ inputTokens: 900, outputTokens: 80, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 });
    expect(spec(result).parameters).toEqual({ employee_name: "山田", new_basic_pay: 300000, effective_year: 2026, effective_month: 12 });
  });

  it("refuses an empty message before calling the model (BadRequestError)", async () => {
    const err = await caught(run("   "));
    expect(err).toBeInstanceOf(BadRequestError);
    expect(h.fake.requests).toHaveLength(0);
  });
});

describe("L1: Message → Task", () => {
  it("Anthropic API エラー (APIError 500) → UpstreamServerError, retried by Step Functions (cause kept)", async () => {
    h.fake.enqueue(errorReply(500, "api_error", "Internal server error"));
    const err = await caught(run());
    expect(err).toBeInstanceOf(UpstreamServerError);
    expect(err.cause).toBeInstanceOf(Anthropic.APIError);
    onlyRequest(h.fake);
  });

  it("JSON パースエラー → MalformedOutputError with the SyntaxError as cause", async () => {
    h.fake.enqueue(messageReply('{"title": "山田さんの基本給変更", "intent": '));
    const err = await caught(run());
    expect(err).toBeInstanceOf(MalformedOutputError);
    expect(err.name).toBe("MalformedOutputError");
    expect(err.cause).toBeInstanceOf(SyntaxError);
    expect((err as MalformedOutputError).details).toMatchObject({ layer: "L1", problem: "json_parse" });
    onlyRequest(h.fake);
  });

  it("JSON パースエラー (fenced reply) → fences stripped, the Task is read", async () => {
    h.fake.enqueue(messageReply("```json\n" + JSON.stringify(answer(), null, 2) + "\n```"));
    const result = await run();
    expect(spec(result).title).toBe("山田さんの基本給変更");
    expect(spec(result).domain).toBe("hr");
    onlyRequest(h.fake);
  });

  it("必須キー欠落 (KeyError) → MalformedOutputError with the ZodError as cause and the issues in details", async () => {
    const { intent: _dropped, ...withoutIntent } = TASK_REPLY;
    h.fake.enqueue(jsonReply(answer(withoutIntent)));
    const err = await caught(run());
    expect(err).toBeInstanceOf(MalformedOutputError);
    expect(err.cause).toBeInstanceOf(core.$ZodError);
    const details = (err as MalformedOutputError).details;
    expect(details).toMatchObject({ layer: "L1", problem: "schema" });
    expect(details.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: "task.intent" })]));
    expect(err.message).toContain("intent");
    onlyRequest(h.fake);
  });

  it("必須キー欠落: a domain outside hr/accounting/other → MalformedOutputError", async () => {
    h.fake.enqueue(jsonReply(answer({ ...TASK_REPLY, domain: "payroll" })));
    const err = await caught(run());
    expect(err).toBeInstanceOf(MalformedOutputError);
    expect((err as MalformedOutputError).details.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: "task.domain" })]));
    onlyRequest(h.fake);
  });

  it("レートリミット (RateLimitError) → RateLimitedError with retry-after, cause kept", async () => {
    h.fake.enqueue(errorReply(429, "rate_limit_error", "rate limited", { "retry-after": "30" }));
    const err = await caught(run());
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterSeconds).toBe(30);
    expect(err.cause).toBeInstanceOf(Anthropic.RateLimitError);
    onlyRequest(h.fake);
  });

  it("duplicate parameter names → MalformedOutputError (a parameter must not be silently overwritten)", async () => {
    h.fake.enqueue(jsonReply(answer({ ...TASK_REPLY, parameters: [{ name: "a", value: 1 }, { name: "a", value: 2 }] })));
    const err = await caught(run());
    expect(err).toBeInstanceOf(MalformedOutputError);
    onlyRequest(h.fake);
  });

  it("parameters as a plain object (a fallback reply without structured output) are accepted", async () => {
    h.fake.enqueue(jsonReply(answer({ ...TASK_REPLY, parameters: { employee_name: "山田" } })));
    const result = await run();
    expect(spec(result).parameters).toEqual({ employee_name: "山田" });
    onlyRequest(h.fake);
  });
});

describe("not every message is a request", () => {
  it("a greeting → not_a_request with L1's short reply, no task", async () => {
    h.fake.enqueue(jsonReply({ kind: "not_a_request", reply: "こんにちは。freee で行いたいことを書いて送ってください。", task: null }));
    const result = await run("こんにちは");
    expect(result.value).toEqual({ kind: "not_a_request", reply: "こんにちは。freee で行いたいことを書いて送ってください。" });
    expect(userText(onlyRequest(h.fake))).toContain("<message>\nこんにちは\n</message>");
  });

  it("the system prompt tells the model to decide first, and to lean to a request when in doubt", () => {
    expect(L1_SYSTEM_PROMPT).toContain("`not_a_request`");
    expect(L1_SYSTEM_PROMPT).toContain("迷うとき");
  });

  it.each([
    ["a non-request without a reply", { kind: "not_a_request", reply: null, task: null }, "reply"],
    ["a non-request whose reply is only whitespace", { kind: "not_a_request", reply: "   ", task: null }, "reply"],
    ["a request without its task", { kind: "request", reply: null, task: null }, "task"],
    ["an answer without the decision (the old shape)", TASK_REPLY, "kind"],
    ["a reply far from short", { kind: "not_a_request", reply: "あ".repeat(401), task: null }, "reply"],
  ])("%s → MalformedOutputError (retried once, then the L1 failure), never a silent success", async (_name, body, path) => {
    h.fake.enqueue(jsonReply(body));
    const err = await caught(run("こんにちは"));
    expect(err).toBeInstanceOf(MalformedOutputError);
    expect((err as MalformedOutputError).details.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });

  it("an empty reply is an EmptyResponseError, as for any layer", async () => {
    h.fake.enqueue(messageReply({ texts: ["  "] }));
    const err = await caught(run("こんにちは"));
    expect(err).toBeInstanceOf(EmptyResponseError);
  });
});
