import { expect, it } from "vitest";
import { ProcessStepSchema, TaskSpecSchema } from "../../lib/core/domain/records";
import { runL1Task } from "../../lib/model/l1-task";
import { runL2Prompt } from "../../lib/model/l2-prompt";
import { runL3Process } from "../../lib/model/l3-process";
import { allowedToolsForSteps, isKnownTool } from "../../lib/freee/tools/summaries";
import { jsonReply, messageReply } from "../../dev/fakes/anthropic";
import { NOW, PROMPT_TEXT, REQUEST_TEXT, useLayerHarness, userText } from "./helpers";

/**
 * Golden path: a realistic Japanese request through L1 → L2 → L3 with scripted model answers. Each layer's
 * output feeds the next request, as the state machine passes it.
 */
const h = useLayerHarness();

it("「来月から山田さんの基本給を30万円に変更して」→ valid Task, Japanese Prompt, Process using freee_hr_update_basic_pay_rule", async () => {
  h.fake.enqueue(
    jsonReply({ kind: "request", reply: null, task: {
      title: "山田さんの基本給変更",
      intent: "山田さんの基本給を 2026 年 12 月から月額 30 万円に変更する。",
      domain: "hr",
      parameters: [
        { name: "employee_name", value: "山田" },
        { name: "new_basic_pay", value: 300000 },
        { name: "pay_calc_type", value: "monthly" },
        { name: "effective_year", value: 2026 },
        { name: "effective_month", value: 12 },
      ],
      missingInformation: ["山田さんの従業員 ID（同姓の従業員がいる場合の特定）"],
    } }),
    messageReply(PROMPT_TEXT),
    jsonReply({
      steps: [
        { stepId: "s1", order: 1, tool: "freee_hr_list_employees", effect: "read", toolInput: '{"year":2026,"month":12}', nameRefs: [] },
        {
          stepId: "s2",
          order: 2,
          tool: "agent_decide",
          effect: "read",
          toolInput: '{"instruction":"一覧から山田さんの従業員 ID を確認する。同姓が複数いれば更新せずに報告する。","tools":["freee_hr_get_employee"]}',
          nameRefs: [],
        },
        {
          stepId: "s3",
          order: 3,
          tool: "agent_decide",
          effect: "read",
          toolInput: '{"instruction":"確認した山田さんの現在の基本給を読む。","tools":["freee_hr_get_basic_pay_rule"]}',
          nameRefs: [],
        },
        {
          stepId: "s4",
          order: 4,
          tool: "freee_hr_update_basic_pay_rule",
          effect: "write",
          toolInput: '{"year":2026,"month":12,"pay_calc_type":"monthly","pay_amount":300000}',
          nameRefs: [{ field: "employee_id", name: "山田" }],
        },
      ],
    }),
  );

  const answer = await runL1Task(h.deps("L1"), { text: REQUEST_TEXT, now: NOW });
  if (answer.value.kind !== "request") throw new Error(`L1 read no request: ${JSON.stringify(answer.value)}`);
  const task = { value: answer.value.spec };
  expect(TaskSpecSchema.parse(task.value)).toEqual(task.value);
  expect(task.value.domain).toBe("hr");
  expect(task.value.parameters).toMatchObject({ new_basic_pay: 300000, effective_year: 2026, effective_month: 12 });

  const prompt = await runL2Prompt(h.deps("L2"), { task: task.value, requestText: REQUEST_TEXT, now: NOW });
  expect(prompt.value).toMatch(/^目的:/);
  expect(prompt.value).toContain("300,000 円");

  const process = await runL3Process(h.deps("L3"), { promptText: prompt.value, task: task.value, now: NOW });
  for (const step of process.value) {
    expect(ProcessStepSchema.parse(step)).toEqual(step);
    expect(isKnownTool(step.tool)).toBe(true);
  }
  const update = process.value.find((s) => s.tool === "freee_hr_update_basic_pay_rule");
  expect(update?.toolInput).toEqual({ year: 2026, month: 12, pay_calc_type: "monthly", pay_amount: 300000 });
  // 山田さん is a name: the plan carries it for the preview to resolve, the employee id is never guessed.
  expect(update).toMatchObject({ effect: "write", nameRefs: [{ field: "employee_id", name: "山田" }] });
  expect(allowedToolsForSteps(process.value)).toContain("freee_hr_update_basic_pay_rule");

  // Each layer got what the previous one produced, and the models of its configuration.
  const [l1, l2, l3] = h.fake.requests;
  expect([l1!.body.model, l2!.body.model, l3!.body.model]).toEqual(["claude-haiku-4-5", "claude-sonnet-4-6", "claude-sonnet-4-6"]);
  expect(userText(l1!)).toContain(REQUEST_TEXT);
  expect(userText(l2!)).toContain(JSON.stringify(task.value, null, 2));
  expect(userText(l3!)).toContain(`<approved_prompt>\n${prompt.value}\n</approved_prompt>`);
  expect(h.fake.requests).toHaveLength(3);
});
