import * as z from "../../core/zod";
import { derefSchema } from "../openapi/validator";
import { operationByTemplate } from "../openapi/operations";

/**
 * How each typed tool's input JSON Schema is made from its source (a zod shape, or freee's own body for that
 * operation). This runs at build time only (`npm run generate`): the result is input-schemas.generated.ts, which
 * the tools read, so no Lambda converts zod to JSON Schema or inflates freee's schemas to build its tool list.
 */
export type InputSchemaSource =
  | { kind: "zod"; schema: z.ZodMiniObject }
  | {
      kind: "operation";
      /** `POST /api/1/deals`: the body's fields (minus company_id and `omit`) beside the path parameters. */
      operation: string;
      omit?: readonly string[];
      /** The alternative of an `anyOf` body (the current one, not the legacy one). */
      branch?: number;
      /** Fields of ours that come first and are required (the upload's Slack file id). */
      leading?: Readonly<Record<string, Record<string, unknown>>>;
    };

export function deriveInputSchema(name: string, source: InputSchemaSource): Record<string, unknown> {
  if (source.kind === "zod") {
    const { $schema: _dropped, ...schema } = z.toJSONSchema(source.schema, { target: "draft-7", io: "input" }) as Record<string, unknown>;
    return schema;
  }
  const { operation } = operationByTemplate(source.operation);
  if (operation.requestBody === undefined) throw new Error(`${name}: ${source.operation} has no body`);
  let body = derefSchema(operation.requestBody.schema) as Record<string, unknown>;
  if (Array.isArray(body.anyOf)) body = body.anyOf[source.branch ?? 0] as Record<string, unknown>;
  const omit = new Set(["company_id", ...(source.omit ?? [])]);
  const leading = source.leading ?? {};
  const pathParams = operation.parameters.filter((p) => p.in === "path");
  const bodyProps = Object.entries((body.properties ?? {}) as Record<string, unknown>).filter(([k]) => !omit.has(k));
  return {
    type: "object",
    properties: {
      ...leading,
      ...Object.fromEntries(pathParams.map((p) => [p.name, { ...p.schema, ...(p.description === undefined ? {} : { description: p.description }) }])),
      ...Object.fromEntries(bodyProps),
    },
    required: [...Object.keys(leading), ...pathParams.filter((p) => p.required).map((p) => p.name), ...((body.required ?? []) as string[]).filter((k) => !omit.has(k))],
    additionalProperties: false,
  };
}
