import type { ProcessStep, SlackFileRef, TaskSpec } from "../core/domain/records";
import { BadRequestError } from "../core/errors/taxonomy";
import { callModelJson, type JsonOutput, type LayerDeps, type ModelResult } from "./call-model";
import { L3ReplySchema } from "./process-steps";
import { OUTPUT_FORMATS } from "./prompts/output-formats.generated";
import { PROMPT_TEXTS } from "./prompts/prompt-texts.generated";
import { TOOL_CATALOGUE } from "./prompts/tool-catalogue.generated";
import { calendarText } from "./calendar";
import { attachmentsSection, requireText, section, todayInTokyo, userMessage } from "./user-message";

/** L3 Prompt → Process (docs/architecture.md, pipeline): the approved plan becomes ordered tool steps. */

export const L3_SYSTEM_PROMPT: string = `${PROMPT_TEXTS["l3-process.system"]}\n${TOOL_CATALOGUE}\n`;

/** The format is made at build time from L3OutputSchema (lib/model/output-schemas.ts, `npm run generate`). */
export const L3_OUTPUT: JsonOutput<{ steps: ProcessStep[] }> = { format: OUTPUT_FORMATS.L3, parse: L3ReplySchema };

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
