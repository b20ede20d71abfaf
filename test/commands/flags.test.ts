import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseChaosArgs } from "../../scripts/chaos-args";
import { fixFor, UsageError } from "../../scripts/cli";
import { parseReportArgs } from "../../scripts/report-args";

/**
 * Every command with a flag it does not know and with a bad value: one line `<command>: <what> — <fix>` on
 * stderr, exit code 1, no stack trace. Each command checks its flags before it loads its harness, so a spawn
 * costs only tsx's start; the value checks of the report and chaos run in-process.
 */
const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", DEV_STACK_FILE: "/nonexistent/dev-stack.json" };

/** Awaited to its exit: the test's limit (vitest.config.ts) is the only clock, and its signal ends the child. */
function run(signal: AbortSignal, script: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const node = script.endsWith(".mjs") ? [script] : ["--import", "tsx", script];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...node, ...args], { cwd: process.cwd(), env, signal });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.once("error", reject);
    child.once("exit", (status) => resolve({ status, stdout, stderr }));
  });
}

function expectOneLine(r: { status: number | null; stderr: string }, command: string, what: RegExp) {
  expect(r.status, r.stderr).toBe(1);
  const lines = r.stderr.trim().split("\n");
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]!.startsWith(`${command}: `), lines[0]).toBe(true);
  expect(lines[0]).toMatch(/ — /);
  expect(lines[0]).toMatch(what);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

/** What runCli prints for an error thrown by a parse function. */
function lineOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    const known = fixFor(err);
    expect(known, String(err)).toBeDefined();
    return `${known!.message} — ${known!.fix}`;
  }
  throw new Error("no error thrown");
}

describe("a flag a command does not know is refused, in one line", () => {
  const commands: Array<[string, string, string[]]> = [
    ["scripts/report.ts", "npm run report", ["--since", "2026-11-01", "--bogus"]],
    ["scripts/chaos.ts", "npm run chaos", ["--bogus"]],
    ["bench/run.ts", "npm run bench", ["--bogus"]],
    ["scripts/dev.ts", "npm run dev", ["--bogus"]],
    ["scripts/smoke.ts", "npm run smoke", ["--bogus"]],
    ["scripts/fill-manifest.mjs", "fill-manifest", ["--bogus"]],
    ["scripts/fuzz.ts", "npm run fuzz", ["--bogus"]],
  ];
  for (const [script, command, args] of commands) {
    it(command, async ({ signal }) => {
      const r = await run(signal, script, args);
      expectOneLine(r, command, /--bogus/);
      expect(r.stdout).toBe("");
    });
  }
});

describe("a bad value is refused, in one line that says what is wrong", () => {
  const today = "2026-12-02";
  it("npm run report: a date that is no calendar day, another spelling, an --until before --since, a bad team", async ({ signal }) => {
    expect(lineOf(() => parseReportArgs(["--since", "2026-13-45"], today))).toMatch(/^--since takes a calendar date YYYY-MM-DD \(got "2026-13-45"\) — e\.g\. --since 2026-11-01/);
    expect(lineOf(() => parseReportArgs(["--since", "2026-02-30"], today))).toMatch(/got "2026-02-30"/);
    expect(lineOf(() => parseReportArgs(["--since", "2026/11/01"], today))).toMatch(/^--since takes a calendar date YYYY-MM-DD \(got "2026\/11\/01"\)/);
    expect(lineOf(() => parseReportArgs(["--since", "2026-11-01", "--until", "2026-10-31"], today))).toMatch(/^--until 2026-10-31 is before --since 2026-11-01 — /);
    expect(lineOf(() => parseReportArgs(["--since", "2026-12-03"], today))).toMatch(/^--until 2026-12-02 is before --since 2026-12-03/);
    expect(lineOf(() => parseReportArgs(["--since", "2026-11-01", "--team", "acme"], today))).toMatch(/--team takes a Slack workspace id/);
    expect(lineOf(() => parseReportArgs(["--since"], today))).toMatch(/argument missing — check the flags/);
    expect(lineOf(() => parseReportArgs([], today))).toMatch(/^--since is required — usage: npm run report -- --since YYYY-MM-DD/);
    expect(parseReportArgs(["--since", "2026-11-01", "--json", "--team", "T0SANDBOX"], today)).toEqual({ since: "2026-11-01", until: today, team: "T0SANDBOX", json: true });
    expect(parseReportArgs(["--since", "2024-02-29", "--until", "2024-02-29"], today)).toMatchObject({ since: "2024-02-29", until: "2024-02-29" });
    // End to end once: what DynamoDB refused with a stack trace before is one line now, before any table is read.
    expectOneLine(await run(signal, "scripts/report.ts", ["--since", "2026-11-02", "--until", "2026-11-01"]), "npm run report", /--until 2026-11-01 is before --since 2026-11-02/);
  });

  it("npm run fuzz: a seed count that is not a whole number from 1 to 10000", async ({ signal }) => {
    expectOneLine(await run(signal, "scripts/fuzz.ts", ["--seeds", "many"]), "npm run fuzz", /--seeds must be a whole number from 1 to 10000, got "many"/);
  });

  it("npm run chaos: a stray argument, a flag without its value, a bad --concurrency", () => {
    expect(lineOf(() => parseChaosArgs(["L1"], 2))).toMatch(/Unexpected argument 'L1'.* — check the flags/);
    expect(lineOf(() => parseChaosArgs(["--only"], 2))).toMatch(/argument missing/);
    expect(lineOf(() => parseChaosArgs(["--concurrency", "two"], 2))).toMatch(/^--concurrency takes a positive integer \(got "two"\) — npm run chaos -- --concurrency 2/);
    expect(parseChaosArgs(["--only", "L1", "--verbose"], 2)).toEqual({ only: "L1", concurrency: 2, verbose: true });
    expect(() => parseChaosArgs([], 2)).not.toThrow(UsageError);
  });
});
