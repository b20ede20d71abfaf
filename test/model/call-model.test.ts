import * as z from "zod/mini";
import { describe, expect, it } from "vitest";
import { MalformedOutputError } from "../../lib/core/errors/taxonomy";
import { buildParams, callModelJson, callModelText, parseJsonReply, stripMarkdownFence } from "../../lib/model/call-model";
import { outputFormatOf } from "../../lib/model/output-schemas";
import { L2_SYSTEM_PROMPT } from "../../lib/model/l2-prompt";
import { L3_SYSTEM_PROMPT } from "../../lib/model/l3-process";
import { cachePlan, estimateTokens } from "../../lib/model/prompt-cache";
import { LAYER_DEFAULTS } from "../../lib/model/settings";
import { messageReply } from "../../dev/fakes/anthropic";
import { caught, onlyRequest, useLayerHarness } from "./helpers";

const h = useLayerHarness();
const Schema = z.object({ answer: z.number() });

describe("stripMarkdownFence (fallback)", () => {
  it.each([
    ['```json\n{"a":1}\n```', '{"a":1}'],
    ['```\n{"a":1}\n```', '{"a":1}'],
    ['  ```JSON\n{"a":1}\n```  \n', '{"a":1}'],
    ['```json\n{\n  "a": "```"\n}\n```', '{\n  "a": "```"\n}'],
    ['{"a":1}', '{"a":1}'],
    ['  {"a":1}\n', '{"a":1}'],
  ])("%j → %j", (input, expected) => {
    expect(stripMarkdownFence(input)).toBe(expected);
  });

  it("leaves text with prose around a fence alone (JSON.parse judges it)", () => {
    const text = 'Here you go:\n```json\n{"a":1}\n```';
    expect(stripMarkdownFence(text)).toBe(text);
    expect(() => parseJsonReply(text, Schema, "L1")).toThrow(MalformedOutputError);
  });
});

describe("buildParams", () => {
  it("sends no output_config when there is neither effort nor format, and a short system prompt without a cache mark", () => {
    const params = buildParams({ layer: "L1", settings: LAYER_DEFAULTS.L1, system: "S", user: "U" }, undefined);
    expect(params).toEqual({
      model: "claude-haiku-4-5",
      max_tokens: 2048,
      system: [{ type: "text", text: "S" }],
      messages: [{ role: "user", content: "U" }],
    });
  });

  it("marks the system block for the cache only when it reaches the model's minimum cacheable length", () => {
    const long = "あ".repeat(3000); // ≥ 2,250 tokens by the low-side estimate
    const mark = (model: string, system: string) => buildParams({ layer: "L2", settings: { ...LAYER_DEFAULTS.L2, model, effort: undefined }, system, user: "U" }, undefined).system;
    expect(mark("claude-sonnet-4-6", long)).toEqual([{ type: "text", text: long, cache_control: { type: "ephemeral" } }]);
    // Haiku 4.5 caches from 4,096 tokens: the same prefix would cache nothing there.
    expect(mark("claude-haiku-4-5", long)).toEqual([{ type: "text", text: long }]);
    // A model without a known minimum gets no mark.
    expect(mark("claude-future-9", long)).toEqual([{ type: "text", text: long }]);
    expect(mark("claude-sonnet-4-6", "あ".repeat(100))).toEqual([{ type: "text", text: "あ".repeat(100) }]);
  });

  it("the layers' prefixes: L2 and L3 (tool catalogue included) reach Sonnet 4.6's 2,048; L1 cannot reach Haiku 4.5's 4,096", () => {
    expect(estimateTokens("abcd".repeat(10))).toBe(10);
    expect(estimateTokens("あいう")).toBe(2);
    expect(cachePlan(LAYER_DEFAULTS.L2.model, L2_SYSTEM_PROMPT)).toMatchObject({ minCacheableTokens: 2048, breakpoint: true });
    expect(cachePlan(LAYER_DEFAULTS.L3.model, L3_SYSTEM_PROMPT)).toMatchObject({ minCacheableTokens: 2048, breakpoint: true });
    expect(cachePlan(LAYER_DEFAULTS.L1.model, "x")).toMatchObject({ minCacheableTokens: 4096, breakpoint: false });
    expect(cachePlan("claude-haiku-4-5-20251001", "x").minCacheableTokens).toBe(4096);
  });

  it("the JSON format carries only type and schema (no parse function), objects strict", () => {
    const format = outputFormatOf(Schema);
    expect(Object.keys(format).sort()).toEqual(["schema", "type"]);
    expect(format.schema).toMatchObject({ type: "object", additionalProperties: false, required: ["answer"] });
  });
});

describe("callModel", () => {
  it("returns usage with cache tokens (null counts as 0), the model and the request id", async () => {
    // The L3 prefix is cacheable on Sonnet 4.6: a first call writes it to the cache (creation), the next reads it.
    h.fake.enqueue(
      messageReply({ texts: ['{"answer": 42}'], model: "claude-sonnet-4-6", usage: { input_tokens: 180, output_tokens: 3, cache_read_input_tokens: null, cache_creation_input_tokens: 2900 } }),
    );
    const result = await callModelJson(
      h.client,
      { layer: "L3", settings: LAYER_DEFAULTS.L3, system: L3_SYSTEM_PROMPT, user: "U" },
      { format: outputFormatOf(Schema), parse: Schema },
    );
    expect(result.value).toEqual({ answer: 42 });
    expect(result.usage).toEqual({ inputTokens: 180, outputTokens: 3, cacheReadInputTokens: 0, cacheCreationInputTokens: 2900 });
    expect(result.model).toBe("claude-sonnet-4-6");
    expect(result.requestId).toMatch(/^req_fake_/);
    expect(onlyRequest(h.fake).body.output_config).toEqual({ effort: "medium", format: outputFormatOf(Schema) });
  });

  it("a text reply joins the text blocks and trims", async () => {
    h.fake.enqueue(messageReply({ texts: ["  前半", "後半\n"] }));
    const result = await callModelText(h.client, { layer: "L2", settings: LAYER_DEFAULTS.L2, system: "S", user: "U" });
    expect(result.value).toBe("前半後半");
    onlyRequest(h.fake);
  });

  it("a schema violation lists each issue with its path", async () => {
    h.fake.enqueue(messageReply('{"answer": "forty-two"}'));
    const err = await caught(
      callModelJson(h.client, { layer: "L1", settings: LAYER_DEFAULTS.L1, system: "S", user: "U" }, { format: outputFormatOf(Schema), parse: Schema }),
    );
    expect(err).toBeInstanceOf(MalformedOutputError);
    expect(err.message).toContain("answer:");
    expect((err as MalformedOutputError).details.issues).toEqual([expect.objectContaining({ path: "answer", code: "invalid_type" })]);
    onlyRequest(h.fake);
  });
});
