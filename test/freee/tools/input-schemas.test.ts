import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { INPUT_SCHEMAS_FILE, renderInputSchemasModule } from "../../../lib/freee/tools/generate";
import { deriveInputSchema } from "../../../lib/freee/tools/input-schemas";
import { TYPED_TOOLS } from "../../../lib/freee/tools/typed-tools";

/**
 * The typed tools' input schemas are made at build time (`npm run generate`) and read from
 * input-schemas.generated.ts: the file must be what the tools' zod shapes and freee's vendored bodies give now.
 */
describe("generated input schemas", () => {
  it("input-schemas.generated.ts is what the typed tools and the vendored schemas give (run `npm run generate`)", () => {
    expect(readFileSync(INPUT_SCHEMAS_FILE, "utf8")).toBe(renderInputSchemasModule());
  });

  it("every typed tool serves the schema its source gives, without $ref", () => {
    for (const tool of TYPED_TOOLS) {
      expect(tool.inputSchema, tool.name).toEqual(deriveInputSchema(tool.name, tool.inputSchemaSource!));
      expect(JSON.stringify(tool.inputSchema), tool.name).not.toContain("$ref");
    }
  });
});
