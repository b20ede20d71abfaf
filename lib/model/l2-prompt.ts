import type { SlackFileRef, TaskSpec } from "../core/domain/records";
import { callModelText, type LayerDeps, type ModelResult } from "./call-model";
import { PROMPT_TEXTS } from "./prompts/prompt-texts.generated";
import { TOOL_CATALOGUE } from "./prompts/tool-catalogue.generated";
import { calendarText } from "./calendar";
import { attachmentsSection, requireText, section, todayInTokyo, userMessage } from "./user-message";

/** L2 Task → Prompt (docs/architecture.md, pipeline): a Japanese execution plan for a human to approve or reject. */

/**
 * The plan may only use what the tools can do, so L2 gets the same tool catalogue as L3. It also makes the static
 * prefix long enough for Sonnet's prompt cache (docs/bench.md lists each layer's prefix and the model's minimum).
 */
export const L2_SYSTEM_PROMPT: string = `${PROMPT_TEXTS["l2-prompt.system"]}\n${TOOL_CATALOGUE}\n`;

/** A rejected version: both parts are required (previous version + reason, always). */
export interface PromptRegeneration {
  previousPromptText: string;
  rejectionReason: string;
}

export interface L2Input {
  task: TaskSpec;
  /** The requester's original message, when available. */
  requestText?: string;
  /** Files shared with the request (a receipt the plan may upload to the file box). */
  attachments?: readonly SlackFileRef[];
  regeneration?: PromptRegeneration;
  now?: Date;
}

export async function runL2Prompt(deps: LayerDeps, input: L2Input): Promise<ModelResult<string>> {
  const regeneration = input.regeneration && {
    previous: requireText(input.regeneration.previousPromptText, "previous prompt text", "L2"),
    reason: requireText(input.regeneration.rejectionReason, "rejection reason", "L2"),
  };
  const user = userMessage([
    section("today", todayInTokyo(input.now ?? new Date())),
    section("calendar", calendarText(input.now ?? new Date())),
    section("task", JSON.stringify(input.task, null, 2)),
    input.requestText === undefined ? undefined : section("request", input.requestText),
    attachmentsSection(input.attachments),
    regeneration && section("previous_prompt", regeneration.previous),
    regeneration && section("rejection_reason", regeneration.reason),
  ]);
  return callModelText(deps.client, { layer: "L2", settings: deps.settings, system: L2_SYSTEM_PROMPT, user });
}
