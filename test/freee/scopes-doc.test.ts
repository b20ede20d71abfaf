import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FREEE_OPERATIONS } from "../../lib/freee/openapi/validator";

/**
 * docs/freee.md's table of the app's 権限 against the operations the tools reach: every vendored operation is under
 * a row (its longest path), and the row grants what the operation needs — read for a GET, write for the others.
 * A new operation without its 権限 in the setup guide is a user who grants too little and meets a 403.
 */

interface Row {
  path: string;
  resource: string;
  read: boolean;
  write: boolean;
}

function rows(): Row[] {
  const doc = readFileSync(new URL("../../docs/freee.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("### The app's 権限 (scopes)"));
  const out: Row[] = [];
  for (const line of section.split("\n")) {
    const cells = /^\| [^|]+ \| `([^`]+)` \| ([^|]+) \| (✓?) \| (✓?) \|$/.exec(line);
    if (cells !== null) out.push({ path: cells[1]!, resource: cells[2]!.trim(), read: cells[3] === "✓", write: cells[4] === "✓" });
  }
  return out;
}

/** The row an operation is under: the longest whose path begins the operation's, whole segments only. */
function rowOf(path: string, table: Row[]): Row | undefined {
  return table.filter((r) => path === r.path || path.startsWith(`${r.path}/`)).sort((a, b) => b.path.length - a.path.length)[0];
}

describe("docs/freee.md lists the 権限 every operation needs", () => {
  const table = rows();

  it("the table is there, the file box (ファイルボックス) in it", () => {
    expect(table.length).toBeGreaterThan(50);
    expect(rowOf("/api/1/receipts", table)).toMatchObject({ resource: "ファイルボックス（証憑ファイル）", read: true, write: true });
    expect(rowOf("/hr/api/v1/employees/{employee_id}/work_records/{date}", table)?.resource).toBe("勤怠");
  });

  it("each vendored operation: its row grants read for a GET and write for a change", () => {
    const missing = FREEE_OPERATIONS.filter((op) => {
      const row = rowOf(op.path, table);
      return row === undefined || (op.method === "GET" ? !row.read : !row.write);
    }).map((op) => `${op.method} ${op.path}`);
    expect(missing).toEqual([]);
  });
});
