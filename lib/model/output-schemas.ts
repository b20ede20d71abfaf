import type Anthropic from "@anthropic-ai/sdk";
import { jsonSchemaOutputFormat } from "@anthropic-ai/sdk/helpers/json-schema";
import * as z from "../core/zod";
import { TaskSpecSchema } from "../core/domain/records";
import { AGENT_DECIDE } from "../freee/tools/summaries";
import { FREEE_TOOLS } from "../freee/tools/registry";
import { ParameterEntry } from "./l1-task";

/**
 * What L1 and L3 ask the API to produce (`output_config.format`), as zod schemas. They are converted to JSON
 * Schema at build time (`npm run generate` writes prompts/output-formats.generated.ts), so the layer Lambdas carry
 * the result and neither these schemas nor zod's JSON Schema conversion. The replies are read with the layers' own
 * parse schemas (L1ReplySchema, L3ReplySchema).
 */

/**
 * `output_config.format` from a zod schema, as the SDK's `zodOutputFormat` builds it (zod's JSON schema, then the
 * SDK's transform, which makes objects strict for the API) but from zod/mini: that helper imports zod classic.
 * Only `type` and `schema` are sent: the parse function belongs to `messages.parse`, unused here.
 */
export function outputFormatOf(schema: z.ZodMiniType): Anthropic.JSONOutputFormat {
  const { type, schema: jsonSchema } = jsonSchemaOutputFormat(z.toJSONSchema(schema, { reused: "ref" }) as Parameters<typeof jsonSchemaOutputFormat>[0]);
  return { type, schema: jsonSchema };
}

const TaskOutput = z.object({
  title: TaskSpecSchema.shape.title,
  intent: TaskSpecSchema.shape.intent,
  domain: TaskSpecSchema.shape.domain,
  parameters: z.array(ParameterEntry),
  missingInformation: TaskSpecSchema.shape.missingInformation,
});

/**
 * L1. Structured outputs make every object strict (no free-form keys), so the TaskSpec's open `parameters` record
 * travels as a list of `{name, value}` entries. The root stays an object (the decision and both answers, one of
 * them null) rather than a root `anyOf`.
 */
export const L1OutputSchema = z.object({
  kind: z.enum(["request", "not_a_request"]),
  reply: z.nullable(z.string()),
  task: z.nullable(TaskOutput),
});

const TOOL_NAMES: [string, ...string[]] = [AGENT_DECIDE, ...FREEE_TOOLS.map((t) => t.name)];

/**
 * L3. The tool name is an enum of the registry; `toolInput` is a JSON string
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
