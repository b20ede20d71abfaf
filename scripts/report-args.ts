import { parseArgs } from "node:util";
import { UsageError } from "./cli";

export const REPORT_USAGE = "npm run report -- --since YYYY-MM-DD [--until YYYY-MM-DD] [--team TEAM_ID] [--json]";

export interface ReportArgs {
  since: string;
  until: string;
  team: string | undefined;
  json: boolean;
}

/**
 * The report's flags, checked before anything is read: a date that is no calendar day (2026-13-45), another
 * spelling (2026/11/01) or an --until before --since is refused here in one line, not by DynamoDB's BETWEEN.
 */
export function parseReportArgs(argv: readonly string[], today: string): ReportArgs {
  // strict (the default): an unknown flag or a stray argument is an ERR_PARSE_ARGS_* error, which runCli explains.
  const { values } = parseArgs({
    args: [...argv],
    options: { since: { type: "string" }, until: { type: "string" }, team: { type: "string" }, json: { type: "boolean", default: false } },
  });
  if (values.since === undefined) throw new UsageError("--since is required", `usage: ${REPORT_USAGE}`);
  const since = calendarDay("--since", values.since);
  const until = values.until === undefined ? today : calendarDay("--until", values.until);
  if (until < since) throw new UsageError(`--until ${until} is before --since ${since}`, "give an --until on or after --since, or leave it out (today)");
  if (values.team !== undefined && !/^[TE][A-Z0-9]{1,20}$/.test(values.team)) throw new UsageError(`--team takes a Slack workspace id (got ${JSON.stringify(values.team)})`, "e.g. --team T0123ABCD (App Home or the workspace URL shows it)");
  return { since, until, team: values.team, json: values.json };
}

function calendarDay(flag: string, raw: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  // Date.UTC rolls 2026-13-45 over into 2027: a real day is one that comes back unchanged.
  const real = m !== null && new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).toISOString().slice(0, 10) === raw;
  if (!real) throw new UsageError(`${flag} takes a calendar date YYYY-MM-DD (got ${JSON.stringify(raw)})`, `e.g. ${flag} 2026-11-01; usage: ${REPORT_USAGE}`);
  return raw;
}
