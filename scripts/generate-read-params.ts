// Writes lib/preview/read-params.generated.json from freee's vendored operations (lib/freee/openapi): per GET
// operation, each parameter's Japanese label and what its enum values mean, in freee's own words, and freee's
// default page size. The Process card says a read in these words (lib/preview/read-words.ts) without loading the
// OpenAPI or its validator into the Slack and web Lambdas. Run after re-vendoring:
// `npx tsx scripts/generate-read-params.ts`. A test fails when the two drift (test/preview/read-words.test.ts).
import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { FREEE_OPERATIONS } from "../lib/freee/openapi/validator";
import { enumLabels, labelOf } from "../lib/freee/schema-words";
import type { ReadOperation, ReadParameter } from "../lib/preview/read-params";
import { readNounOf } from "../lib/freee/collection-nouns";

export const READ_PARAMS_FILE = fileURLToPath(new URL("../lib/preview/read-params.generated.json", import.meta.url));

export function renderReadParams(): string {
  const out: Record<string, ReadOperation> = {};
  // Only the collections a read is said for (lib/freee/collection-nouns.ts): the rest would only weigh on the bundles.
  const gets = FREEE_OPERATIONS.filter((op) => op.method === "GET" && readNounOf(op.path) !== undefined).sort((a, b) => a.path.localeCompare(b.path));
  for (const op of gets) {
    const parameters: Record<string, ReadParameter> = {};
    let defaultCount: number | undefined;
    for (const p of op.parameters) {
      // company_id is never in a step's input (every tool acts on the connected company): nothing to say.
      if ((p.in !== "query" && p.in !== "path") || p.name === "company_id") continue;
      const label = labelOf(p.description);
      const values = Array.isArray(p.schema.enum) ? (p.schema.enum as unknown[]) : [];
      const meanings = enumLabels(p.description, values);
      parameters[p.name] = { ...(label === undefined ? {} : { label }), ...(Object.keys(meanings).length > 0 ? { enum: meanings } : {}) };
      // freee says its page size in the parameter's words (「取得レコードの件数 (デフォルト: 20, 最大: 100)」).
      if (p.name === "limit" || p.name === "per_page") {
        const fallback = /デフォルト\s*[:：]\s*(\d+)/.exec(p.description ?? "")?.[1];
        if (fallback !== undefined) defaultCount = Number(fallback);
      }
    }
    out[op.path] = { parameters, ...(defaultCount === undefined ? {} : { defaultCount }) };
  }
  return `${JSON.stringify(out, null, 2)}\n`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(READ_PARAMS_FILE, renderReadParams());
  console.log(`wrote ${READ_PARAMS_FILE}`);
}
