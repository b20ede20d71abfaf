import type { ReadTable } from "../../core/domain/records";
import { inlineMrkdwn } from "../../core/messages/mrkdwn";

/**
 * A read result on the Execution card, as an accountant reads a list: the column names (freee's Japanese names,
 * lib/model/agent/result-columns.ts) in bold, then one line per row, cells apart by 「／」. Not a code block:
 * Japanese text does not line up in one anyway, and a code block shows every value as code. Every cell is freee's
 * text, anyone's text: each is kept to its line and escaped (a partner named <!channel> notifies nobody).
 */

const SEPARATOR = " ／ ";
/** An empty cell, so the columns of a row still line up with the heading. */
const EMPTY = "—";

/**
 * `head` (already mrkdwn), the column line and as many of `maxRows` rows as fit in `maxChars`; `rest` words the
 * rows left out (freee's total minus the rows shown), empty when there are none.
 */
export function resultTableText(head: string, table: ReadTable, maxRows: number, maxChars: number, rest: (left: number) => string): string {
  const heading = table.columns.map((c) => `*${inlineMrkdwn(c)}*`).join(SEPARATOR);
  const lines = [heading];
  let used = heading.length;
  for (const row of table.rows.slice(0, maxRows)) {
    const line = `• ${row.map((v) => (v === "" ? EMPTY : inlineMrkdwn(v))).join(SEPARATOR)}`;
    if (used + line.length + 1 > maxChars) break;
    lines.push(line);
    used += line.length + 1;
  }
  const left = table.total - (lines.length - 1);
  return `${head}\n${lines.join("\n")}${left <= 0 ? "" : `\n${rest(left)}`}`;
}
