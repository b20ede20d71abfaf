import * as z from "../core/zod";
import { TaskSpecSchema, type TaskSpec } from "../core/domain/records";
import { callModelJson, type JsonOutput, type LayerDeps, type ModelResult } from "./call-model";
import { OUTPUT_FORMATS } from "./prompts/output-formats.generated";
import { PROMPT_TEXTS } from "./prompts/prompt-texts.generated";
import { requireText, section, todayInTokyo, userMessage } from "./user-message";

/**
 * L1 Message → Task (docs/architecture.md, pipeline): a Slack message becomes a TaskSpec — or, when it asks for no work on freee
 * (a greeting, a question), a short reply and no task.
 */

export const L1_SYSTEM_PROMPT: string = PROMPT_TEXTS["l1-task.system"];

/** What L1 decided. Only a `request` goes on to a plan. */
export type L1Result = { kind: "request"; spec: TaskSpec } | { kind: "not_a_request"; reply: string };

/** A reply longer than this is not "short": the model misread its job (MalformedOutputError, retried once). */
export const L1_REPLY_MAX_CHARS = 400;

const ParameterValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
/** One of the TaskSpec's parameters as the API writes it (lib/model/output-schemas.ts asks for a list of these). */
export const ParameterEntry = z.object({ name: z.string().check(z.minLength(1)), value: ParameterValue });

const uniqueNames = (entries: readonly { name: string }[]) => new Set(entries.map((e) => e.name)).size === entries.length;

const TaskReply: z.ZodMiniType<TaskSpec> = z.pipe(
  z.object({
    ...TaskSpecSchema.shape,
    parameters: z.union([
      z.pipe(
        z.array(ParameterEntry).check(z.refine(uniqueNames, "parameter names must be unique")),
        z.transform((entries) => Object.fromEntries(entries.map((e) => [e.name, e.value]))),
      ),
      TaskSpecSchema.shape.parameters,
    ]),
  }),
  TaskSpecSchema,
);

/**
 * How a reply is read: entries (structured output) or a plain object (a fenced fallback reply). The decision and
 * its answer must agree — a request without a task, or a non-request without a reply, is malformed (docs/architecture.md, error table:
 * a 200 OK that does not say what it must is not an answer).
 */
export const L1ReplySchema: z.ZodMiniType<L1Result> = z.discriminatedUnion("kind", [
  z.pipe(
    z.object({ kind: z.literal("request"), reply: z.optional(z.nullable(z.string())), task: TaskReply }),
    z.transform((r): L1Result => ({ kind: "request", spec: r.task })),
  ),
  z.pipe(
    z.object({ kind: z.literal("not_a_request"), reply: z.string().check(z.trim(), z.minLength(1), z.maxLength(L1_REPLY_MAX_CHARS)), task: z.optional(z.null()) }),
    z.transform((r): L1Result => ({ kind: "not_a_request", reply: r.reply })),
  ),
]);

/** The format is made at build time from L1OutputSchema (lib/model/output-schemas.ts, `npm run generate`). */
export const L1_OUTPUT: JsonOutput<L1Result> = { format: OUTPUT_FORMATS.L1, parse: L1ReplySchema };

export interface L1Input {
  /** The Slack message text. */
  text: string;
  /** "Now", for resolving 来月 etc.; defaults to the current time. */
  now?: Date;
}

export async function runL1Task(deps: LayerDeps, input: L1Input): Promise<ModelResult<L1Result>> {
  const text = requireText(input.text, "message text", "L1");
  const user = userMessage([section("today", todayInTokyo(input.now ?? new Date())), section("message", text)]);
  return callModelJson(deps.client, { layer: "L1", settings: deps.settings, system: L1_SYSTEM_PROMPT, user }, L1_OUTPUT);
}
