// Writes lib/model/agent/result-columns.generated.json from freee's vendored response schemas
// (lib/freee/openapi/freee-responses.json): per list in freee's answers, each field's Japanese label and what its
// enum values mean, in freee's own words. Run after re-vendoring: `npx tsx scripts/generate-result-columns.ts`.
// A test fails when the two drift (test/model/agent/result-table.test.ts).
import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import vendored from "../lib/freee/openapi/freee-responses.json";
import { derefResponse } from "../lib/freee/openapi/responses";
import { enumLabels, labelOf } from "../lib/freee/schema-words";
import { readNounOf } from "../lib/freee/collection-nouns";
import { neverShown } from "../lib/model/agent/result-columns";

export const RESULT_COLUMNS_FILE = fileURLToPath(new URL("../lib/model/agent/result-columns.generated.json", import.meta.url));

type Column = { label: string; enum?: Record<string, string> };
type Schema = { type?: string | string[]; description?: string; enum?: unknown[]; properties?: Record<string, Schema>; items?: Schema; oneOf?: Schema[]; anyOf?: Schema[]; allOf?: Schema[] };

const SCALAR = new Set(["string", "integer", "number", "boolean"]);
const typeOf = (s: Schema) => (Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type);

function objectOf(schema: Schema | undefined): Schema | undefined {
  if (schema === undefined) return undefined;
  if (schema.properties !== undefined) return schema;
  for (const alt of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) {
    const found = objectOf(alt);
    if (found !== undefined) return found;
  }
  return undefined;
}

function columnsOf(item: Schema): Record<string, Column> {
  const out: Record<string, Column> = {};
  for (const [field, prop] of Object.entries(item.properties ?? {})) {
    const type = typeOf(prop);
    if (type === undefined || !SCALAR.has(type) || neverShown(field)) continue;
    const label = labelOf(prop.description);
    if (label === undefined) continue;
    const values = prop.enum ?? (type === "boolean" ? [true, false] : []);
    const meanings = enumLabels(prop.description, values);
    out[field] = { label, ...(Object.keys(meanings).length > 0 ? { enum: meanings } : {}) };
  }
  return out;
}

export function renderResultColumns(): string {
  const lists: Record<string, Record<string, Column>> = {};
  const apis = (vendored as unknown as { apis: Record<string, { responses: Record<string, Record<string, unknown>> }> }).apis;
  for (const api of Object.keys(apis).sort()) {
    for (const [operation, statuses] of Object.entries(apis[api]!.responses).sort(([a], [b]) => a.localeCompare(b))) {
      // Only the collections a read is said for (lib/freee/collection-nouns.ts): the rest would only weigh on the bundles.
      if (!operation.startsWith("GET ") || statuses["200"] == null || readNounOf(operation.slice("GET ".length)) === undefined) continue;
      const body = objectOf(derefResponse(statuses["200"]) as Schema);
      for (const [key, prop] of Object.entries(body?.properties ?? {})) {
        const item = typeOf(prop) === "array" ? objectOf(prop.items) : undefined;
        if (item === undefined) continue;
        lists[key] = { ...columnsOf(item), ...(lists[key] ?? {}) };
      }
    }
  }
  const sorted = Object.fromEntries(Object.keys(lists).sort().map((k) => [k, lists[k]]));
  return `${JSON.stringify(sorted, null, 2)}\n`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(RESULT_COLUMNS_FILE, renderResultColumns());
  console.log(`wrote ${RESULT_COLUMNS_FILE}`);
}
