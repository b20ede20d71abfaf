import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as taxonomy from "../../lib/core/errors/taxonomy";
import * as ja from "../../lib/core/messages/ja";

/**
 * docs/architecture.md holds the error table and the messages users see: a class added to lib/core/errors/taxonomy.ts
 * or a message added to lib/core/messages/ja.ts without its row fails here.
 */
const DOC = readFileSync("docs/architecture.md", "utf8");

/** The rows of the first table under a heading (header and rule skipped), cells trimmed. */
function tableUnder(heading: string): string[][] {
  const at = DOC.indexOf(`\n${heading}\n`);
  expect(at, heading).toBeGreaterThanOrEqual(0);
  const lines = DOC.slice(at + 1).split("\n");
  const start = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split("|").slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}
const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** Card labels and App Home words, not messages about what happened: they have no row. */
const LABEL_GROUPS = new Set(["ExecutionCardTexts", "HomeTexts"]);

describe("docs/architecture.md", () => {
  it("the error table has one row per error class of lib/core/errors/taxonomy.ts, each cell filled", () => {
    const rows = tableUnder("## Error table");
    for (const row of rows) {
      expect(row, row.join(" | ")).toHaveLength(4);
      for (const cell of row) expect(cell.length, row[0]).toBeGreaterThan(0);
    }
    const documented = new Set(rows.flatMap((r) => ticked(r[0]!)));
    const classes = Object.entries(taxonomy)
      .filter(([, v]) => typeof v === "function" && v.prototype instanceof taxonomy.AppError)
      .map(([name]) => name);
    expect(classes.length).toBeGreaterThan(20);
    const matched = Object.values(taxonomy.ErrorNames).flat();
    for (const name of new Set([...classes, ...matched])) expect(documented, `no error table row for ${name}`).toContain(name);
  });

  it("the messages table gives every message of lib/core/messages/ja.ts word for word", () => {
    const rows = new Map(tableUnder("### Messages").map((r) => [ticked(r[0]!)[0], r[1]]));
    let count = 0;
    for (const [group, value] of Object.entries(ja)) {
      if (typeof value !== "object" || value === null || LABEL_GROUPS.has(group)) continue;
      for (const [key, text] of Object.entries(value as Record<string, unknown>)) {
        if (typeof text !== "string") continue;
        count += 1;
        expect(rows.get(`${group}.${key}`), `${group}.${key}`).toBe(text);
      }
    }
    expect(count).toBeGreaterThan(40);
  });
});
