import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { coverageCounts, coverageMarkdown, coverageRows } from "../../scripts/freee-coverage-table";

/** docs/freee-operations.md is generated from the vendored schemas and the tool registry, and cannot drift from them. */
describe("freee operations coverage", () => {
  it("docs/freee-operations.md is what the vendored schemas and the tools give (npm run freee:coverage -- --write)", () => {
    const committed = readFileSync(new URL("../../docs/freee-operations.md", import.meta.url), "utf8");
    expect(committed).toBe(coverageMarkdown());
  });

  it("327 of 327: every operation reached by a tool, every write with a write class and a preview", () => {
    expect(coverageCounts()).toEqual({
      accounting: { covered: 151, total: 151 },
      hr: { covered: 109, total: 109 },
      invoice: { covered: 42, total: 42 },
      pm: { covered: 11, total: 11 },
      sm: { covered: 14, total: 14 },
    });
    const rows = coverageRows();
    for (const r of rows.filter((x) => x.effect === "write")) {
      expect(r.writeClass, r.template).toMatch(/^(marker|values|gone|none): /);
      expect(r.preview, r.template).toBeDefined();
    }
    expect(rows.find((r) => r.template === "POST /api/1/deals")).toMatchObject({ tool: "freee_accounting_create_deal", writeClass: expect.stringMatching(/^marker: ref_number/) });
  });
});
