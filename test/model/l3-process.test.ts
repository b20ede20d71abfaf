import { core } from "zod/mini";
import { describe, expect, it } from "vitest";
import type { ProcessStep } from "../../lib/core/domain/records";
import { BadRequestError, MalformedOutputError } from "../../lib/core/errors/taxonomy";
import { L3_OUTPUT, L3_SYSTEM_PROMPT, runL3Process, type L3Input } from "../../lib/model/l3-process";
import { FREEE_TOOLS } from "../../lib/freee/tools/registry";
import { jsonReply, messageReply } from "../../dev/fakes/anthropic";
import { caught, expectLayerRequest, NOW, onlyRequest, PROMPT_TEXT, TASK, useLayerHarness, userText } from "./helpers";

/** L3: Prompt → Process, `_validate_steps` row by row, and the retry / regeneration inputs. */
const h = useLayerHarness();
const run = (extra: Partial<L3Input> = {}) => runL3Process(h.deps("L3"), { promptText: PROMPT_TEXT, task: TASK, now: NOW, ...extra });

const wireStep = (order: number, tool: string, toolInput: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  stepId: `s${order}`,
  order,
  tool,
  toolInput: JSON.stringify(toolInput),
  ...extra,
});

const GOOD_STEPS = [
  wireStep(1, "freee_hr_list_employees", { year: 2026, month: 12 }, { effect: "read", nameRefs: [] }),
  wireStep(2, "agent_decide", { instruction: "一覧から山田さんの従業員 ID を特定し、同姓が複数いれば停止して報告する", tools: ["freee_hr_get_employee"] }, { effect: "read", nameRefs: [] }),
  wireStep(
    3,
    "freee_hr_update_basic_pay_rule",
    { year: 2026, month: 12, pay_calc_type: "monthly", pay_amount: 300000 },
    { effect: "write", nameRefs: [{ field: "employee_id", name: "山田" }] },
  ),
];

async function expectMalformed(reply: ReturnType<typeof jsonReply>, messagePart: string): Promise<MalformedOutputError> {
  h.fake.enqueue(reply);
  const err = await caught(run());
  expect(err).toBeInstanceOf(MalformedOutputError);
  expect(err.name).toBe("MalformedOutputError");
  expect(err.message).toContain(messagePart);
  expectLayerRequest(onlyRequest(h.fake), h.settings, "L3", L3_SYSTEM_PROMPT);
  return err as MalformedOutputError;
}

describe("L3 request", () => {
  it("carries the strong model, the cached system prompt with every registry tool, the steps output format and the approved prompt", async () => {
    h.fake.enqueue(jsonReply({ steps: GOOD_STEPS }));
    const result = await run();
    const req = onlyRequest(h.fake);
    expectLayerRequest(req, h.settings, "L3", L3_SYSTEM_PROMPT);
    expect(req.body.output_config).toEqual({ effort: "medium", format: L3_OUTPUT.format });
    for (const tool of FREEE_TOOLS) expect(L3_SYSTEM_PROMPT).toContain(`### ${tool.name}`);
    expect(L3_SYSTEM_PROMPT).toContain("### agent_decide");
    expect(JSON.stringify(req.body.output_config.format.schema)).toContain("freee_hr_update_basic_pay_rule");
    const user = userText(req);
    expect(user).toContain(`<approved_prompt>\n${PROMPT_TEXT}\n</approved_prompt>`);
    // Today in Japan and the months 今月 / 先月 / 来月 name, so a period in the plan becomes exact dates.
    expect(user).toContain("<today>\n2026-11-30\n</today>\n\n<calendar>\n今月: 2026年11月（2026-11-01 〜 2026-11-30）\n先月: 2026年10月（2026-10-01 〜 2026-10-31）\n来月: 2026年12月（2026-12-01 〜 2026-12-31）\n</calendar>");
    expect(user).not.toContain("<validation_error>");
    expect(user).not.toContain("<rejection_reason>");
    expect(result.value.map((s) => s.tool)).toEqual(["freee_hr_list_employees", "agent_decide", "freee_hr_update_basic_pay_rule"]);
    expect(result.value[2]!.toolInput).toEqual({ year: 2026, month: 12, pay_calc_type: "monthly", pay_amount: 300000 });
    expect(result.value[2]).toMatchObject({ effect: "write", nameRefs: [{ field: "employee_id", name: "山田" }] });
    expect(result.value[1]).toMatchObject({ effect: "read", toolInput: { instruction: expect.any(String) }, readScope: { tools: ["freee_hr_get_employee"] } });
    const schema = JSON.stringify(req.body.output_config.format.schema);
    expect(schema).toContain('"effect"');
    expect(schema).toContain('"nameRefs"');
  });

  it("returns the steps sorted by order, whatever order the reply listed them in", async () => {
    h.fake.enqueue(jsonReply({ steps: [GOOD_STEPS[2], GOOD_STEPS[0], GOOD_STEPS[1]] }));
    const result = await run();
    expect(result.value.map((s) => s.order)).toEqual([1, 2, 3]);
    onlyRequest(h.fake);
  });
});

describe("L3: Prompt → Process (_validate_steps)", () => {
  it("JSON パースエラー: a fenced reply → fences stripped, steps read", async () => {
    h.fake.enqueue(messageReply("```json\n" + JSON.stringify({ steps: GOOD_STEPS }) + "\n```"));
    const result = await run();
    expect(result.value).toHaveLength(3);
    onlyRequest(h.fake);
  });

  it("JSON パースエラー: not JSON even without fences → MalformedOutputError with the SyntaxError as cause", async () => {
    const err = await expectMalformed(messageReply('{"steps": [{"stepId": "s1",'), "not valid JSON");
    expect(err.cause).toBeInstanceOf(SyntaxError);
    expect(err.details).toMatchObject({ layer: "L3", problem: "json_parse" });
  });

  it("steps キー欠落 (KeyError) → MalformedOutputError 'steps key missing', ZodError cause", async () => {
    const err = await expectMalformed(jsonReply({ plan: GOOD_STEPS }), "steps key missing");
    expect(err.cause).toBeInstanceOf(core.$ZodError);
    expect(err.details.issues).toEqual([{ path: "steps", code: "custom", message: "steps key missing" }]);
  });

  it("不正な tool 名 → MalformedOutputError 'Unknown tool: …' (the message is what the retry shows the model)", async () => {
    const err = await expectMalformed(
      jsonReply({ steps: [GOOD_STEPS[0], wireStep(2, "freee_hr_delete_employee", { employee_id: 1 })] }),
      "Unknown tool: freee_hr_delete_employee",
    );
    expect(err.cause).toBeInstanceOf(core.$ZodError);
    expect(err.details.issues).toEqual([expect.objectContaining({ path: "steps.1.tool" })]);
  });

  it("steps が空配列 → MalformedOutputError 'steps array is empty'", async () => {
    const err = await expectMalformed(jsonReply({ steps: [] }), "steps array is empty");
    expect(err.cause).toBeInstanceOf(core.$ZodError);
  });

  it("required keys: a step without toolInput → MalformedOutputError 'Step s2 missing keys: toolInput'", async () => {
    const { toolInput: _dropped, ...noInput } = GOOD_STEPS[1]!;
    await expectMalformed(jsonReply({ steps: [GOOD_STEPS[0], noInput] }), "Step s2 missing keys: toolInput");
  });

  it("required keys: a step without stepId → 'Step ? missing keys: stepId'", async () => {
    const { stepId: _dropped, ...noId } = GOOD_STEPS[0]!;
    await expectMalformed(jsonReply({ steps: [noId] }), "Step ? missing keys: stepId");
  });

  it("tool input shape: a key the tool does not take → MalformedOutputError naming the step and tool", async () => {
    await expectMalformed(
      jsonReply({ steps: [wireStep(1, "freee_hr_update_basic_pay_rule", { year: 2026, month: 12, pay_amount: 300000, effective_date: "2026-12-01" })] }),
      "Step s1 (freee_hr_update_basic_pay_rule) toolInput",
    );
  });

  it("tool input shape: a wrong type (amount as text) → MalformedOutputError", async () => {
    await expectMalformed(
      jsonReply({ steps: [wireStep(1, "freee_hr_update_basic_pay_rule", { year: 2026, month: 12, pay_amount: "30万円" })] }),
      "freee_hr_update_basic_pay_rule",
    );
  });

  it("tool input shape: agent_decide needs an instruction", async () => {
    await expectMalformed(jsonReply({ steps: [wireStep(1, "agent_decide", {})] }), "Step s1 (agent_decide) toolInput");
  });

  it("toolInput that is not a JSON object → MalformedOutputError", async () => {
    await expectMalformed(jsonReply({ steps: [{ ...GOOD_STEPS[0], toolInput: "year=2026" }] }), "Step s1: toolInput is not valid JSON");
  });

  it("duplicate stepId or order → MalformedOutputError", async () => {
    await expectMalformed(jsonReply({ steps: [GOOD_STEPS[0], { ...GOOD_STEPS[1], stepId: "s1", order: 1 }] }), "duplicate stepId: s1");
  });

  it("toolInput as an object (a fallback reply without structured output) is accepted", async () => {
    h.fake.enqueue(jsonReply({ steps: [{ ...GOOD_STEPS[0], toolInput: { year: 2026, month: 12 } }] }));
    const result = await run();
    expect(result.value[0]!.toolInput).toEqual({ year: 2026, month: 12 });
    onlyRequest(h.fake);
  });
});

describe("L3 retry after a validation failure (エラーを含めてリトライ)", () => {
  it("the previous validation error is in the retry request, and a corrected reply passes", async () => {
    h.fake.enqueue(jsonReply({ steps: [wireStep(1, "freee_hr_delete_employee", {})] }));
    const first = await caught(run());
    expect(first).toBeInstanceOf(MalformedOutputError);
    h.fake.requests.length = 0;

    h.fake.enqueue(jsonReply({ steps: GOOD_STEPS }));
    const result = await run({ previousValidationError: first.message });
    const user = userText(onlyRequest(h.fake));
    expect(user).toContain(`<validation_error>\n${first.message}\n</validation_error>`);
    expect(first.message).toContain("Unknown tool: freee_hr_delete_employee");
    expect(result.value).toHaveLength(3);
  });
});

describe("Process regeneration after a rejection", () => {
  const previousSteps: ProcessStep[] = GOOD_STEPS.map((s) => ({ ...s, toolInput: JSON.parse(s.toolInput) as Record<string, unknown> }));

  it("前バージョン参照: the previous steps and the rejection reason are both in the request", async () => {
    const reason = "更新の前に現在の基本給を取得するステップを入れてください";
    h.fake.enqueue(jsonReply({ steps: GOOD_STEPS }));
    await run({ regeneration: { previousSteps, rejectionReason: reason } });
    const req = onlyRequest(h.fake);
    expectLayerRequest(req, h.settings, "L3", L3_SYSTEM_PROMPT);
    const user = userText(req);
    expect(user).toContain(`<previous_steps>\n${JSON.stringify({ steps: previousSteps }, null, 2)}\n</previous_steps>`);
    expect(user).toContain(`<rejection_reason>\n${reason}\n</rejection_reason>`);
  });

  it("却下理由必須: an empty reason or no previous steps is refused before any model call", async () => {
    const noReason = await caught(run({ regeneration: { previousSteps, rejectionReason: "" } }));
    expect(noReason).toBeInstanceOf(BadRequestError);
    const noSteps = await caught(run({ regeneration: { previousSteps: [], rejectionReason: "理由" } }));
    expect(noSteps).toBeInstanceOf(BadRequestError);
    expect(h.fake.requests).toHaveLength(0);
  });
});
