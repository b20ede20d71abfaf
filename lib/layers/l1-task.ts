import { z } from "zod";
import { TaskSpecSchema, type TaskSpec } from "../domain/records";
import { callModelJson, outputFormatOf, type JsonOutput, type LayerDeps, type ModelResult } from "./call-model";
import { PROMPT_TEXTS } from "./prompts/prompt-texts.generated";
import { requireText, section, todayInTokyo, userMessage } from "./user-message";

/** L1 Message → Task (DESIGN §1): a Slack message becomes a TaskSpec. */

export const L1_SYSTEM_PROMPT: string = PROMPT_TEXTS["l1-task.system"];

const ParameterValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const ParameterEntry = z.object({ name: z.string().min(1), value: ParameterValue });

/**
 * What the API is asked to produce. Structured outputs make every object strict (no free-form keys), so the
 * TaskSpec's open `parameters` record travels as a list of `{name, value}` entries.
 */
export const L1OutputSchema = z.object({
  title: TaskSpecSchema.shape.title,
  intent: TaskSpecSchema.shape.intent,
  domain: TaskSpecSchema.shape.domain,
  parameters: z.array(ParameterEntry),
  missingInformation: TaskSpecSchema.shape.missingInformation,
});

const uniqueNames = (entries: readonly { name: string }[]) => new Set(entries.map((e) => e.name)).size === entries.length;

/** How a reply is read: entries (structured output) or a plain object (a fenced fallback reply). */
export const L1ReplySchema: z.ZodType<TaskSpec> = z
  .object({
    ...TaskSpecSchema.shape,
    parameters: z.union([
      z
        .array(ParameterEntry)
        .refine(uniqueNames, "parameter names must be unique")
        .transform((entries) => Object.fromEntries(entries.map((e) => [e.name, e.value]))),
      TaskSpecSchema.shape.parameters,
    ]),
  })
  .pipe(TaskSpecSchema);

export const L1_OUTPUT: JsonOutput<TaskSpec> = { format: outputFormatOf(L1OutputSchema), parse: L1ReplySchema };

export interface L1Input {
  /** The Slack message text. */
  text: string;
  /** "Now", for resolving 来月 etc.; defaults to the current time. */
  now?: Date;
}

export async function runL1Task(deps: LayerDeps, input: L1Input): Promise<ModelResult<TaskSpec>> {
  const text = requireText(input.text, "message text", "L1");
  const user = userMessage([section("today", todayInTokyo(input.now ?? new Date())), section("message", text)]);
  return callModelJson(deps.client, { layer: "L1", settings: deps.settings, system: L1_SYSTEM_PROMPT, user }, L1_OUTPUT);
}
