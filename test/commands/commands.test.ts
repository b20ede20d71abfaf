import { spawn } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LOCAL_STACK_NAME, localStackOutputs, readDevStackFile } from "../../dev/local/dev-stack-file";

/**
 * The repo's commands as a newcomer runs them, each as its own process: a configuration problem ends in one
 * line on stderr that says what is wrong and how to fix it (no stack trace), and `npm run report` finds the
 * running `npm run dev` by itself (.local/dev-stack.json; DEV_STACK_FILE here, to keep the test's own).
 */
const work = mkdtempSync(join(tmpdir(), "commands-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const baseEnv = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? work, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", DEV_STACK_FILE: join(work, "none.json") };

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A command as its own process, asynchronously: the tests of this file run side by side (each spawn is mostly
 * node and tsx starting). It is awaited to its exit, with no clock of its own: the test's limit (vitest.config.ts)
 * is the only one, and the test's signal kills a child still running when the test ends.
 */
function spawnCommand(signal: AbortSignal, command: string, args: string[], env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: process.cwd(), env: { ...baseEnv, ...env }, signal });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

function run(signal: AbortSignal, script: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const node = script.endsWith(".mjs") ? [script] : ["--import", "tsx", script];
  return spawnCommand(signal, process.execPath, [...node, ...args], env);
}

/** `npm …` in the repository, as a person types it (npm's own configuration from the project's .npmrc). */
function npmRun(signal: AbortSignal, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return spawnCommand(signal, "npm", args, env);
}

/** One line, naming the command, with a fix after the dash; no stack frame. */
function expectOneLine(stderr: string, command: string, fix: RegExp) {
  const lines = stderr.trim().split("\n");
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^${command.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: .+ — `));
  expect(lines[0]).toMatch(fix);
  expect(stderr).not.toMatch(/\n\s+at /);
}

// Every test here runs side by side with the others (the config errors while npm run dev starts its stack).
describe.concurrent("the repository's commands", () => {
  describe("configuration errors: one line with the fix", () => {
    it("npm run report with no TABLE_NAME and no npm run dev running", async ({ signal }) => {
      const r = await run(signal, "scripts/report.ts", ["--since", "2026-11-01"]);
      expect(r.status).toBe(1);
      expectOneLine(r.stderr, "npm run report", /start `npm run dev`.*or set TABLE_NAME/);
    });

    it("npm run report with a stale .local/dev-stack.json (its npm run dev was killed)", async ({ signal }) => {
      const stale = join(work, "stale.json");
      writeFileSync(stale, JSON.stringify({ url: "http://127.0.0.1:9", tableName: "t", dynamodbEndpoint: "http://127.0.0.1:9", region: "us-east-1", pid: 999_999, startedAt: "2026-12-01T00:00:00Z" }));
      const r = await run(signal, "scripts/report.ts", ["--since", "2026-11-01"], { DEV_STACK_FILE: stale });
      expect(r.status).toBe(1);
      expectOneLine(r.stderr, "npm run report", /does not answer — start `npm run dev` again/);
    });

    it("npm run report without --since, and with a flag it does not know", async ({ signal }) => {
      const [r, bad] = await Promise.all([run(signal, "scripts/report.ts", []), run(signal, "scripts/report.ts", ["--since", "2026-11-01", "--tabel", "x"])]);
      expectOneLine(r.stderr, "npm run report", /usage: npm run report -- --since YYYY-MM-DD/);
      expect(bad.status).toBe(1);
      expectOneLine(bad.stderr, "npm run report", /check the flags/);
    });

    it("npm run report against AWS with no region names the setting", async ({ signal }) => {
      const r = await run(signal, "scripts/report.ts", ["--since", "2026-11-01"], { TABLE_NAME: "SlackMcpAgent-Table", AWS_ACCESS_KEY_ID: "x", AWS_SECRET_ACCESS_KEY: "y" });
      expect(r.status).toBe(1);
      expectOneLine(r.stderr, "npm run report", /set AWS_REGION/);
    });

    it("npm run dev with a bad setting, with Slack credentials but no signing secret, and on a port in use", async ({ signal }) => {
      const [bad, slack, missing, noJava] = await Promise.all([
        run(signal, "scripts/dev.ts", [], { PORT: "abc", DATA_DIR: ":memory:" }),
        run(signal, "scripts/dev.ts", [], { PORT: "0", DATA_DIR: ":memory:", SLACK_BOT_TOKEN: "a-bot-token" }),
        run(signal, "scripts/dev.ts", [], { ENV_FILE: join(work, "no.env") }),
        // DynamoDB Local is a Java program: without `java` on PATH, one line says so and how to fix it.
        run(signal, "scripts/dev.ts", [], { PORT: "0", DATA_DIR: ":memory:", PATH: "/nonexistent" }),
      ]);
      expect(bad.status).toBe(1);
      expectOneLine(bad.stderr, "npm run dev", /set PORT in \.env/);
      expectOneLine(slack.stderr, "npm run dev", /add SLACK_SIGNING_SECRET to \.env/);
      expectOneLine(missing.stderr, "npm run dev", /point ENV_FILE at your settings file/);
      expect(noJava.status).toBe(1);
      expectOneLine(noJava.stderr, "npm run dev", /needs Java 17.*install Java 17/);

      const holder = createServer();
      await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
      try {
        const port = String((holder.address() as AddressInfo).port);
        const busy = await new Promise<{ status: number | null; stderr: string }>((resolve, reject) => {
          // Asynchronous: the port's holder lives in this process and must keep answering.
          const child = spawn(process.execPath, ["--import", "tsx", "scripts/dev.ts"], { cwd: process.cwd(), env: { ...baseEnv, PORT: port, DATA_DIR: ":memory:" }, signal });
          let stderr = "";
          child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
          child.once("error", reject);
          child.once("exit", (status) => resolve({ status, stderr }));
        });
        expect(busy.status).toBe(1);
        expectOneLine(busy.stderr, "npm run dev", /set PORT \(PORT=0 picks a free one\)/);
      } finally {
        holder.close();
      }
    });

    // Both answer before the harness loads (the flags are read first); --only reads the matrix only.
    it("npm run chaos with a bad --concurrency, and with an --only that matches no cell", async ({ signal }) => {
      const [c, only] = await Promise.all([run(signal, "scripts/chaos.ts", ["--concurrency", "0"]), run(signal, "scripts/chaos.ts", ["--only", "no-such-cell"])]);
      expect(c.status).toBe(1);
      expectOneLine(c.stderr, "npm run chaos", /--concurrency 2/);
      expectOneLine(only.stderr, "npm run chaos", /e\.g\. --only freee/);
    });

    it("npm run bench with a bad --requests", async ({ signal }) => {
      const b = await run(signal, "bench/run.ts", ["--requests", "0"]);
      expect(b.status).toBe(1);
      expectOneLine(b.stderr, "npm run bench", /--quick/);
    });

    it("fill-manifest prints its usage when it has nothing to fill from, one line for a missing outputs file", async ({ signal }) => {
      const [none, missing, half] = await Promise.all([
        run(signal, "scripts/fill-manifest.mjs", []),
        run(signal, "scripts/fill-manifest.mjs", ["--outputs", join(work, "cdk-outputs.json")]),
        run(signal, "scripts/fill-manifest.mjs", [], { SLACK_EVENTS_URL: "https://x.example/slack/events" }),
      ]);
      expect(none.status).toBe(2);
      expect(none.stderr).toMatch(/^usage: node scripts\/fill-manifest\.mjs --outputs cdk-outputs\.json/);
      expect(none.stderr).toContain("npx cdk deploy --outputs-file cdk-outputs.json");
      expect(missing.status).toBe(1);
      expectOneLine(missing.stderr, "fill-manifest", /npx cdk deploy --outputs-file cdk-outputs\.json/);
      expectOneLine(half.stderr, "fill-manifest", /INGRESS_URL/);
    });
  });

  describe("npm run report finds the running npm run dev with no flags", () => {
    it("npm run dev writes where its table is; the report reads it; the file goes when dev stops", async ({ signal }) => {
      const stackFile = join(work, "dev-stack.json");
      const outputsFile = join(work, "cdk-outputs.json");
      const dev = spawn(process.execPath, ["--import", "tsx", "scripts/dev.ts"], {
        cwd: process.cwd(),
        env: { ...baseEnv, DEV_STACK_FILE: stackFile, DEV_OUTPUTS_FILE: outputsFile, PORT: "0", DATA_DIR: ":memory:", LOG_LEVEL: "SILENT", SANDBOX_STEP_DELAY_MS: "5", LOCAL_WAIT_MS: "30" },
        stdio: ["ignore", "pipe", "pipe"],
        signal,
      });
      let output = "";
      dev.stdout.on("data", (c: Buffer) => (output += c.toString("utf8")));
      dev.stderr.on("data", (c: Buffer) => (output += c.toString("utf8")));
      const exited = new Promise<number | null>((resolve) => dev.once("exit", resolve));
      try {
        // Waits on the process itself: its start line, or its exit. A loaded machine may take longer than any guess
        // of seconds; a dev that hangs is caught by the test's own timeout.
        const url = await new Promise<string>((resolve, reject) => {
          const onData = () => {
            const m = /local stack on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
            if (m) {
              dev.stdout.off("data", onData);
              resolve(m[1]!);
            }
          };
          dev.stdout.on("data", onData);
          dev.once("error", reject);
          void exited.then((code) => reject(new Error(`npm run dev exited with ${String(code)}:\n${output}`)));
        });
        const info = readDevStackFile(stackFile);
        expect(info).toMatchObject({ url, tableName: "slack-mcp-agent-local", pid: dev.pid });
        expect(output).toContain(`table:          slack-mcp-agent-local at ${info!.dynamodbEndpoint}`);
        // The outputs `npm run smoke` reads, in cdk's --outputs-file shape (test/commands/smoke.test.ts runs it).
        expect(JSON.parse(readFileSync(outputsFile, "utf8"))).toEqual(localStackOutputs(url, "slack-mcp-agent-local"));
        expect(output).toContain(`outputs:        ${outputsFile}`);
        expect(Object.keys(localStackOutputs(url, "t")[LOCAL_STACK_NAME]!)).toContain("WebUrl");

        // Something to count: a request through the sandbox page's API, as a click would make it.
        const posted = await fetch(`${url}/sandbox/api/message`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "経費の取引を見せて" }) });
        expect(posted.status).toBe(200);
        const today = new Date().toISOString().slice(0, 10);
        let ledger: { tasks: unknown[] } = { tasks: [] };
        // The ingress writes the task after its ack: read again until the report counts it (the test's limit ends a
        // wait for a task that never comes).
        while (ledger.tasks.length === 0) {
          // As typed: `npm run report -- --json` (the project's .npmrc sends npm's banner to stderr, so stdout parses).
          const r = await npmRun(signal, ["run", "report", "--", "--since", today, "--json"], { DEV_STACK_FILE: stackFile });
          expect(r.status, r.stderr).toBe(0);
          expect(r.stderr).toContain(`the table of npm run dev at ${url}`);
          ledger = JSON.parse(r.stdout) as { tasks: unknown[] };
          if (ledger.tasks.length === 0) await new Promise((resolve) => setTimeout(resolve, 500));
        }
      } finally {
        dev.kill("SIGTERM");
        await exited;
      }
      expect(existsSync(stackFile)).toBe(false);
    });
  });
});
