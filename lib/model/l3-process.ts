import * as z from "../core/zod";
import type { ProcessStep, SlackFileRef, TaskSpec } from "../core/domain/records";
import { BadRequestError } from "../core/errors/taxonomy";
import { AGENT_DECIDE } from "../freee/tools/summaries";
import { FREEE_TOOLS } from "../freee/tools/registry";
import { callModelJson, outputFormatOf, type JsonOutput, type LayerDeps, type ModelResult } from "./call-model";
import { L3ReplySchema } from "./process-steps";
import { PROMPT_TEXTS } from "./prompts/prompt-texts.generated";
import { TOOL_CATALOGUE } from "./prompts/tool-catalogue.generated";
import { calendarText } from "./calendar";
import { attachmentsSection, requireText, section, todayInTokyo, userMessage } from "./user-message";

/** L3 Prompt → Process (docs/architecture.md, pipeline): the approved plan becomes ordered tool steps. */

export const L3_SYSTEM_PROMPT: string = `${PROMPT_TEXTS["l3-process.system"]}\n${TOOL_CATALOGUE}\n`;

const TOOL_NAMES: [string, ...string[]] = [AGENT_DECIDE, ...FREEE_TOOLS.map((t) => t.name)];

/**
 * What the API is asked to produce. The tool name is an enum of the registry; `toolInput` is a JSON string
 * because structured outputs allow no free-form objects (every object is made strict). `checkSteps` reads it.
 * `effect` says which steps write (checked against the tool); `nameRefs` lists the values of a write step the
 * request gave as names, for the preview to resolve before approval (docs/architecture.md, the approved Process is the capability).
 */
export const L3OutputSchema = z.object({
  steps: z
    .array(
      z.object({
        stepId: z.string(),
        order: z.int(),
        tool: z.enum(TOOL_NAMES),
        effect: z.enum(["read", "write"]).check(z.describe("read: 読み取りだけ / write: freee のデータを変更する")),
        toolInput: z.string().check(z.describe("そのツールへの入力。JSON オブジェクトを文字列にしたもの")),
        nameRefs: z
          .array(z.object({ field: z.string(), name: z.string() }))
          .check(z.describe("書き込みステップで、依頼が名前で指定した ID（従業員・取引先・勘定科目など）。なければ空配列")),
      }),
    )
    .check(z.minLength(1)),
});

export const L3_OUTPUT: JsonOutput<{ steps: ProcessStep[] }> = { format: outputFormatOf(L3OutputSchema), parse: L3ReplySchema };

/** A rejected version: both parts are required (docs/architecture.md, limits). */
export interface ProcessRegeneration {
  previousSteps: readonly ProcessStep[];
  rejectionReason: string;
}

export interface L3Input {
  /** The approved Prompt text. */
  promptText: string;
  task?: TaskSpec;
  /** Files shared with the request: an upload step names one by its fileId. */
  attachments?: readonly SlackFileRef[];
  regeneration?: ProcessRegeneration;
  /**
   * The previous attempt's validation error (the MalformedOutputError message Step Functions caught), so
   * the retry does not repeat it ("エラーを含めてリトライ").
   */
  previousValidationError?: string;
  now?: Date;
}

export async function runL3Process(deps: LayerDeps, input: L3Input): Promise<ModelResult<ProcessStep[]>> {
  const promptText = requireText(input.promptText, "approved prompt text", "L3");
  const regeneration = input.regeneration && {
    previous: requirePreviousSteps(input.regeneration.previousSteps),
    reason: requireText(input.regeneration.rejectionReason, "rejection reason", "L3"),
  };
  const validationError =
    input.previousValidationError === undefined ? undefined : requireText(input.previousValidationError, "previous validation error", "L3");
  const user = userMessage([
    section("today", todayInTokyo(input.now ?? new Date())),
    section("calendar", calendarText(input.now ?? new Date())),
    input.task === undefined ? undefined : section("task", JSON.stringify(input.task, null, 2)),
    section("approved_prompt", promptText),
    attachmentsSection(input.attachments),
    regeneration && section("previous_steps", JSON.stringify({ steps: regeneration.previous }, null, 2)),
    regeneration && section("rejection_reason", regeneration.reason),
    validationError === undefined ? undefined : section("validation_error", validationError),
  ]);
  const result = await callModelJson(deps.client, { layer: "L3", settings: deps.settings, system: L3_SYSTEM_PROMPT, user }, L3_OUTPUT);
  return { ...result, value: result.value.steps };
}

/** Same rule as the reason: a regeneration without the previous version cannot address the rejection. */
function requirePreviousSteps(steps: readonly ProcessStep[]): readonly ProcessStep[] {
  if (steps.length === 0) {
    throw new BadRequestError("L3: previous steps are empty", { details: { layer: "L3", missing: "previous steps" } });
  }
  return steps;
}
