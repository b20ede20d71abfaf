import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startFakeControlPlane, type FakeControlPlane } from "../../dev/fakes/aws/control-plane";
import { LOCAL_STACK_NAME, localStackOutputs } from "../../dev/local/dev-stack-file";
import { startLocalStack, type LocalStack } from "../../dev/local/local-stack";
import { OPERATOR_SECRETS, SECRET_NAMES, secretOutputName } from "../../infra/secret-names";
import { createSmokeAws } from "../../scripts/smoke-aws";
import { runSmoke, type SmokeResult } from "../../scripts/smoke-checks";
import { testDynamoEndpoint, uniqueTableName } from "../support/dynamo";

/**
 * `npm run smoke` against the `npm run dev` stack (multi-workspace mode, so it has an install page) and the outputs
 * file it writes; Secrets Manager and SNS are the local stand-in behind the SDK's endpoint variables.
 */
const SIGNING = "smoke-signing-secret-0123456789";
const ACCOUNT = "arn:aws:secretsmanager:ap-northeast-1:000000000000:secret:";
const TOPIC = "arn:aws:sns:ap-northeast-1:000000000000:SlackMcpAgent-Alarms";
const work = mkdtempSync(join(tmpdir(), "smoke-"));
let stack: LocalStack;
let aws: FakeControlPlane;
let local: Record<string, string>;
const awsEnv = () => ({ AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.url, AWS_ENDPOINT_URL_SNS: aws.url, AWS_ACCESS_KEY_ID: "smoke", AWS_SECRET_ACCESS_KEY: "smoke", AWS_REGION: "ap-northeast-1" });

beforeAll(async () => {
  aws = await startFakeControlPlane();
  stack = await startLocalStack({
    PATH: process.env.PATH,
    LOG_LEVEL: "SILENT",
    PORT: "0",
    DATA_DIR: ":memory:",
    DYNAMODB_ENDPOINT: testDynamoEndpoint(),
    TABLE_NAME: uniqueTableName("smoke"),
    SLACK_CLIENT_ID: "111.222",
    SLACK_CLIENT_SECRET: "smoke-client-secret",
    SLACK_STATE_SECRET: "smoke-state-secret-0123456789",
    SLACK_SIGNING_SECRET: SIGNING,
  });
  local = localStackOutputs(stack.url, stack.env.TABLE_NAME!)[LOCAL_STACK_NAME]!;
});
afterAll(async () => {
  await Promise.all([stack.close(), aws.close()]);
  rmSync(work, { recursive: true, force: true });
});

/** The deployed stack's outputs: the local URLs plus a secret ARN per secret and the alarm topic, on the stand-in. */
function deployed(filled = true, subscriptions = ["arn:aws:sns:ap-northeast-1:000000000000:SlackMcpAgent-Alarms:1"], signing = SIGNING): Record<string, string> {
  aws.secrets.clear();
  aws.topics.clear();
  const outputs: Record<string, string> = { ...local, AlarmTopicArn: TOPIC };
  for (const name of SECRET_NAMES) {
    const arn = `${ACCOUNT}${name}-AbCdEf`;
    outputs[secretOutputName(name)] = arn;
    aws.secrets.set(arn, { arn, value: name === "SLACK_SIGNING_SECRET" ? signing : `value-of-${name}`, versions: OPERATOR_SECRETS.includes(name) && filled ? 2 : 1 });
  }
  aws.topics.set(TOPIC, { arn: TOPIC, subscriptions });
  return outputs;
}

async function smoke(outputs: Record<string, string>, env: Record<string, string> = {}): Promise<SmokeResult[]> {
  for (const [k, v] of Object.entries({ ...awsEnv(), ...env })) vi.stubEnv(k, v);
  try {
    return await runSmoke(outputs, createSmokeAws(), process.env);
  } finally {
    vi.unstubAllEnvs();
  }
}
const byCheck = (results: SmokeResult[]) => Object.fromEntries(results.map((r) => [r.check, r]));

describe("npm run smoke", () => {
  it("the local stack's outputs: every URL answers, the install page redirects to Slack, a signed url_verification is answered", async () => {
    const results = byCheck(await smoke(local, { SLACK_SIGNING_SECRET: SIGNING }));
    for (const check of ["ingress health", "web health", "freee-mcp health", "Slack install page", "Slack url_verification"]) expect(results[check], check).toMatchObject({ status: "ok" });
    expect(results.secrets).toMatchObject({ status: "skip" });
    expect(results["alarm subscriber"]).toMatchObject({ status: "skip" });
  });

  it("a deployed stack's outputs pass when every secret is filled and on-call is subscribed; no secret value is read but the signing secret", async () => {
    aws.calls.length = 0;
    const results = await smoke(deployed());
    expect(results.filter((r) => r.status !== "ok"), JSON.stringify(results, null, 1)).toEqual([]);
    expect(results.filter((r) => r.check.startsWith("secret "))).toHaveLength(SECRET_NAMES.length);
    const reads = aws.calls.filter((c) => c.action === "GetSecretValue").map((c) => c.target);
    expect(reads).toEqual([`${ACCOUNT}SLACK_SIGNING_SECRET-AbCdEf`]);
  });

  it("each problem is one failing check with its fix: an unfilled secret, a wrong signing secret, nobody subscribed", async () => {
    const unfilled = byCheck(await smoke(deployed(false)));
    for (const name of OPERATOR_SECRETS) expect(unfilled[`secret ${name}`], name).toMatchObject({ status: "FAIL", detail: "still holds the value the stack generated", fix: expect.stringContaining(`put-secret-value --secret-id ${ACCOUNT}${name}`) });
    expect(unfilled["secret MCP_BEARER_SECRET"]).toMatchObject({ status: "ok" });
    const wrong = byCheck(await smoke(deployed(true, [], "the-generated-placeholder")));
    expect(wrong["Slack url_verification"]).toMatchObject({ status: "FAIL", detail: expect.stringContaining("refused the signature (401)"), fix: expect.stringContaining("SLACK_SIGNING_SECRET") });
    expect(wrong["alarm subscriber"]).toMatchObject({ status: "FAIL", detail: "nobody is subscribed to the alarm topic", fix: expect.stringContaining(`aws sns subscribe --topic-arn ${TOPIC}`) });
    const pending = byCheck(await smoke(deployed(true, ["PendingConfirmation"])));
    expect(pending["alarm subscriber"]).toMatchObject({ status: "FAIL", detail: "the subscription is not confirmed yet" });
    const gone = byCheck(await smoke({ ...local, IngressUrl: "http://127.0.0.1:9/" }, { SLACK_SIGNING_SECRET: SIGNING }));
    expect(gone["ingress health"]).toMatchObject({ status: "FAIL", fix: expect.stringContaining("deployed") });
  });

  it("as a command: one line per check, the fix after each failure, exit 1, and no secret value printed", async ({ signal }) => {
    const file = join(work, "cdk-outputs.json");
    writeFileSync(file, JSON.stringify({ SlackMcpAgent: deployed(false) }));
    const r = await new Promise<{ status: number | null; out: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", "scripts/smoke.ts", "--outputs", file], { env: { PATH: process.env.PATH ?? "", HOME: work, ...awsEnv() }, signal });
      let out = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
      child.stderr.on("data", (c: Buffer) => (out += c.toString("utf8")));
      child.once("error", reject);
      child.once("exit", (status) => resolve({ status, out }));
    });
    expect(r.status, r.out).toBe(1);
    const lines = r.out.trim().split("\n").filter((l) => l !== "");
    expect(lines.filter((l) => l.startsWith("FAIL"))).toHaveLength(OPERATOR_SECRETS.length);
    for (const line of lines.filter((l) => l.startsWith("FAIL"))) expect(line).toMatch(/ — fix: aws secretsmanager put-secret-value/);
    expect(lines.filter((l) => l.startsWith("ok "))).toHaveLength(3 + 1 + 1 + (SECRET_NAMES.length - OPERATOR_SECRETS.length) + 1);
    expect(lines.at(-1)).toBe(`smoke: ${OPERATOR_SECRETS.length} of ${3 + 2 + SECRET_NAMES.length + 1} checks fail`);
    for (const name of SECRET_NAMES) expect(r.out).not.toContain(`value-of-${name}`);
    expect(r.out).not.toContain(SIGNING);
    expect(r.out).not.toMatch(/\n\s+at /);
  });
});
