import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEALED_CONTEXT_KEYS, type SealedKind } from "../../infra/key-access";
import { TABLE_KEYS } from "../../lib/store/table";
import { startRecordingAws, type AwsCall, type RecordingAws } from "../support/recording-aws";
import { startRecordingDynamo, type RecordingDynamo } from "../support/recording-dynamo";
import { synthTemplate } from "./synth";
import { exerciseFreeeMcp, exerciseIngress, SCENARIO_SECRETS } from "./table-access-scenarios";

/**
 * The token key and the secrets, from real code paths: the public Lambdas (Slack ingress, web pages, freee MCP
 * server) run their scenarios as deployed — secrets by ARN from Secrets Manager, tokens sealed with KMS — at a
 * recording endpoint that attributes each call to its Lambda. Two directions against the synthesized template:
 * every recorded call is allowed (key, action, encryption context; secret), and a public Lambda holds no grant
 * its code did not use (which sealed kind it may open or seal; which secret it may read).
 */
const { stack, template } = synthTemplate();
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
const logicalId = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as never);
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>> };
const PUBLIC = ["ingress", "web", "freee-mcp"] as const;
type Public = (typeof PUBLIC)[number];

function statementsOf(name: Public): Statement[] {
  const role = logicalId(stack.functions[name].role);
  return Object.values(resources)
    .filter((r) => r.Type === "AWS::IAM::Policy" && (r.Properties.Roles as { Ref: string }[]).some((x) => x.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}
const actions = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const tokenKeyArn = JSON.stringify({ "Fn::GetAtt": [logicalId(stack.data.tokenKey), "Arn"] });
const kindOf = (contextKeys: readonly string[]): SealedKind | "none" =>
  contextKeys.length === 0 ? "none" : contextKeys.every((k) => SEALED_CONTEXT_KEYS.installation.includes(k)) ? "installation" : contextKeys.every((k) => SEALED_CONTEXT_KEYS.freee.includes(k)) ? "freee" : "none";

/** IAM's answer for a recorded KMS call on the token key: an Allow whose context-key condition admits its context. */
function kmsAllowed(name: Public, call: AwsCall): boolean {
  return statementsOf(name).some((s) => {
    if (s.Effect !== "Allow" || !actions(s).includes(call.action) || !JSON.stringify(s.Resource).includes(tokenKeyArn)) return false;
    const keys = s.Condition?.["ForAllValues:StringEquals"]?.["kms:EncryptionContextKeys"] as string[] | undefined;
    const present = s.Condition?.Null?.["kms:EncryptionContextKeys"] === "false";
    if (keys === undefined) return s.Condition === undefined;
    return (!present || call.contextKeys!.length > 0) && call.contextKeys!.every((k) => keys.includes(k));
  });
}
/** What the template lets a Lambda do with the token key: `<action> <sealed kind>`. */
function kmsGranted(name: Public): string[] {
  return statementsOf(name)
    .filter((s) => JSON.stringify(s.Resource).includes(tokenKeyArn))
    .flatMap((s) => actions(s).map((a) => `${a} ${kindOf((s.Condition?.["ForAllValues:StringEquals"]?.["kms:EncryptionContextKeys"] as string[] | undefined) ?? [])}`));
}
/** The secrets the template lets a Lambda read. */
function secretsGranted(name: Public): string[] {
  return (Object.keys(stack.data.secrets) as (keyof typeof stack.data.secrets)[]).filter((secret) =>
    statementsOf(name).some((s) => actions(s).includes("secretsmanager:GetSecretValue") && JSON.stringify(s.Resource).includes(JSON.stringify({ Ref: logicalId(stack.data.secrets[secret]) }))),
  );
}

let dynamo: RecordingDynamo;
let aws: RecordingAws;
const key = Buffer.alloc(32, 5).toString("base64");
beforeAll(async () => {
  dynamo = await startRecordingDynamo(TABLE_KEYS.partitionKey);
  aws = await startRecordingAws(SCENARIO_SECRETS);
  await exerciseIngress(dynamo, key, aws);
  await exerciseFreeeMcp(dynamo, key, aws);
});
afterAll(async () => {
  await dynamo.close();
  await aws.close();
});
/**
 * Grants whose code path these scenarios do not take, each named with where it is exercised: the MCP server opens
 * the workspace's Slack installation only for a file-box upload's Slack file (test/mcp/file-box.ddb.test.ts).
 */
const EXERCISED_ELSEWHERE: Partial<Record<Public, string[]>> = { "freee-mcp": ["kms:Decrypt installation"] };
const recorded = (name: Public) => aws.calls.filter((c) => c.principal === name);
const unique = (xs: string[]) => [...new Set(xs)].sort();

describe("the token key, from the calls the public Lambdas make", () => {
  it("every recorded Encrypt / Decrypt is allowed by the caller's role, with its encryption context", () => {
    for (const name of PUBLIC) {
      const kms = recorded(name).filter((c) => c.action.startsWith("kms:"));
      expect(kms.length, `${name} made no KMS call`).toBeGreaterThan(0);
      for (const call of kms) expect(call.keyId, name).toBe("arn:aws:kms:us-east-1:123456789012:key/token-key");
      expect(kms.filter((c) => !kmsAllowed(name, c)).map((c) => `${c.action} {${c.contextKeys!.join(",")}}`), name).toEqual([]);
    }
  });

  it("no public Lambda may do with it more than its code did (which kind it opens or seals)", () => {
    for (const name of PUBLIC) {
      const used = unique([...recorded(name).filter((c) => c.action.startsWith("kms:")).map((c) => `${c.action} ${kindOf(c.contextKeys!)}`), ...(EXERCISED_ELSEWHERE[name] ?? [])]);
      expect(unique(kmsGranted(name)), name).toEqual(used);
    }
    // The two public pages never open a workspace's freee tokens; only the MCP server does.
    for (const name of ["ingress", "web"] as const) expect(kmsGranted(name), name).not.toContain("kms:Decrypt freee");
  });
});

describe("the secrets, from the reads the public Lambdas make", () => {
  it("each Lambda may read exactly the secrets its code read; MCP_BEARER_SECRET only where bearers are checked", () => {
    for (const name of PUBLIC) {
      const read = unique(recorded(name).filter((c) => c.action === "secretsmanager:GetSecretValue").map((c) => c.secret!));
      expect(read.length, `${name} read no secret`).toBeGreaterThan(0);
      expect(unique(secretsGranted(name)), name).toEqual(read);
    }
    expect(PUBLIC.filter((n) => secretsGranted(n).includes("MCP_BEARER_SECRET"))).toEqual(["freee-mcp"]);
  });
});
