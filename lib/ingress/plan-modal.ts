import type { ModalView } from "@slack/web-api";
import * as z from "zod/mini";
import type { ProcessVersion, Task } from "../core/domain/records";
import { context, escapeMrkdwn, inlineMrkdwn, section, wholeSection } from "./cards/blocks";
import { stepTitle } from "./cards/execution-steps";
import { planSection } from "./cards/process-card";
import { BLOCKED_MARK, chunk, planApprovalBlocker, planLayout, planSummary, PlanMessages, sortedSteps, WARNING_MARK } from "../preview/plan";

/**
 * The two modals of the Process review: the whole plan, whose submit is the approval of a plan too
 * long for a card, and the raw input of some steps (「入力 JSON」). private_metadata carries ids only.
 */
export const APPROVE_PLAN_CALLBACK_ID = "approve_full_plan";

export const PlanMetadataSchema = z.object({
  taskId: z.string().check(z.minLength(1), z.maxLength(200)),
  kind: z.literal("process"),
  version: z.int().check(z.positive()),
});
export type PlanMetadata = z.infer<typeof PlanMetadataSchema>;

const MODAL_BLOCKS = 100;

/** The whole plan; submit = 承認 (absent when the plan cannot be approved as it is). */
export function buildFullPlanModal(task: Task, record: ProcessVersion): ModalView {
  const layout = planLayout(record);
  const approvable = record.preview?.status === "ready" && layout.kind !== "too_large";
  const blocks: ModalView["blocks"] = [context(`${planSummary(record)}。下のすべてを確認してから承認してください。`)];
  if (layout.kind === "too_large") blocks.push(section(`${BLOCKED_MARK} ${PlanMessages.tooLarge}`));
  else blocks.push(...layout.sections.map((s) => planSection(task.taskId, record.version, s)));
  // A modal's submit has no confirm dialog: the warnings are counted right above it instead.
  const warned = (record.preview?.warnings ?? []).filter((w) => w.kind !== "no_op").length;
  const caution = warned > 0 ? `${WARNING_MARK} 確認が必要な点が ${warned} 件あります（上の各ステップに表示）。\n` : "";
  blocks.push(section(approvable ? `${caution}以上がこの実行ステップのすべてです。「承認する」を押すと、この内容だけが実行されます。` : `${BLOCKED_MARK} ${planApprovalBlocker(record, "full_plan") ?? PlanMessages.notPreviewed}`));
  return {
    type: "modal",
    callback_id: APPROVE_PLAN_CALLBACK_ID,
    private_metadata: JSON.stringify({ taskId: task.taskId, kind: "process", version: record.version } satisfies PlanMetadata),
    title: { type: "plain_text", text: `実行ステップ v${record.version}`.slice(0, 24) },
    ...(approvable ? { submit: { type: "plain_text" as const, text: "承認する" } } : {}),
    close: { type: "plain_text", text: "閉じる" },
    blocks,
  };
}

/** The raw input of the given steps, as stored (what the MCP server compares a write with). */
export function buildStepInputModal(record: ProcessVersion, stepIds: readonly string[]): ModalView {
  const steps = sortedSteps(record).filter((s) => stepIds.includes(s.stepId));
  const blocks: ModalView["blocks"] = [];
  for (const step of steps) {
    // A backtick in a value would close the code block early: shown as its look-alike.
    const json = escapeMrkdwn(JSON.stringify(step.toolInput, null, 2)).replace(/`/g, "ˋ");
    // Each piece is its own code block: leave room for the fences and the step line.
    const pieces = chunk(json, 2_800);
    // Headed as the card numbers the step (its id and tool name are internals; the JSON is the raw input itself).
    const title = `*${step.order}. ${inlineMrkdwn(stepTitle(step, record.preview?.steps.find((p) => p.stepId === step.stepId)))}*\n`;
    pieces.forEach((piece, i) => blocks.push(wholeSection(`${i === 0 ? title : ""}\`\`\`${piece}\`\`\``)));
  }
  if (blocks.length === 0) blocks.push(section("このステップは見つかりません。"));
  if (blocks.length > MODAL_BLOCKS) {
    // Only for raw JSON of very many steps at once; the plan itself is shown whole by the full-plan modal.
    blocks.splice(MODAL_BLOCKS - 1);
    blocks.push(section("（入力が長いため、ここまでを表示しています。ステップごとの「入力 JSON」から個別に確認できます。）"));
  }
  return {
    type: "modal",
    title: { type: "plain_text", text: "入力 JSON" },
    close: { type: "plain_text", text: "閉じる" },
    blocks,
  };
}
