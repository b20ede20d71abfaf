import { z } from "zod";
import { describe, expect, it } from "vitest";
import { MalformedOutputError } from "../../lib/errors/taxonomy";
import { buildParams, callModelJson, callModelText, outputFormatOf, parseJsonReply, stripMarkdownFence } from "../../lib/layers/call-model";
import { LAYER_DEFAULTS } from "../../lib/layers/settings";
import { messageReply } from "../../dev/fakes/anthropic";
import { caught, onlyRequest, useLayerHarness } from "./helpers";

const h = useLayerHarness();
const Schema = z.object({ answer: z.number() });

describe("stripMarkdownFence (seed §3.3 fallback)", () => {
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
  it("sends no output_config when there is neither effort nor format, and the system prompt as one cached block", () => {
    const params = buildParams({ layer: "L1", settings: LAYER_DEFAULTS.L1, system: "S", user: "U" }, undefined);
    expect(params).toEqual({
      model: "claude-haiku-4-5",
      max_tokens: 2048,
      system: [{ type: "text", text: "S", cache_control: { type: "ephemeral" } }],
      messages: [{ role: "user", content: "U" }],
    });
  });

  it("the JSON format carries only type and schema (no parse function), objects strict", () => {
    const format = outputFormatOf(Schema);
    expect(Object.keys(format).sort()).toEqual(["schema", "type"]);
    expect(format.schema).toMatchObject({ type: "object", additionalProperties: false, required: ["answer"] });
  });
});

describe("callModel", () => {
  it("returns usage with cache tokens (null counts as 0), the model and the request id", async () => {
    h.fake.enqueue(
      messageReply({ texts: ['{"answer": 42}'], model: "claude-haiku-4-5", usage: { input_tokens: 10, output_tokens: 3, cache_read_input_tokens: null, cache_creation_input_tokens: 1200 } }),
    );
    const result = await callModelJson(
      h.client,
      { layer: "L1", settings: LAYER_DEFAULTS.L1, system: "S", user: "U" },
      { format: outputFormatOf(Schema), parse: Schema },
    );
    expect(result.value).toEqual({ answer: 42 });
    expect(result.usage).toEqual({ inputTokens: 10, outputTokens: 3, cacheReadInputTokens: 0, cacheCreationInputTokens: 1200 });
    expect(result.model).toBe("claude-haiku-4-5");
    expect(result.requestId).toMatch(/^req_fake_/);
    expect(onlyRequest(h.fake).body.output_config).toEqual({ format: outputFormatOf(Schema) });
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
