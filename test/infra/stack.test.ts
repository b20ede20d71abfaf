import { Match } from "aws-cdk-lib/assertions";
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ErrorNames } from "../../lib/core/errors/taxonomy";
import { TABLE_KEYS } from "../../lib/store/table";
import { SECRET_NAMES } from "../../infra/constructs/data";
import { synthTemplate } from "./synth";

const { stack, template } = synthTemplate();
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any>; DependsOn?: unknown }>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const lambdas = ofType("AWS::Lambda::Function");
const logicalId = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as never);

/** The statements of every policy attached to a role (inline + AWS::IAM::Policy). */
function statementsOf(roleLogicalId: string): { Action: string | string[]; Resource: unknown }[] {
  return ofType("AWS::IAM::Policy")
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleLogicalId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
}
const actionsOf = (roleLogicalId: string) => statementsOf(roleLogicalId).flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));

describe("Lambdas", () => {
  it("one function per lambdas/ folder, Node 22 on arm64", () => {
    expect(lambdas).toHaveLength(readdirSync("lambdas").length);
    for (const [, fn] of lambdas) {
      expect(fn.Properties.Runtime).toBe("nodejs22.x");
      expect(fn.Properties.Architectures).toEqual(["arm64"]);
      expect(fn.Properties.TracingConfig).toEqual({ Mode: "Active" });
    }
  });

  it("every function logs to its own log group with a retention (90 days by default)", () => {
    for (const [id, fn] of lambdas) {
      const groupId = fn.Properties.LoggingConfig?.LogGroup?.Ref as string | undefined;
      expect(groupId, id).toBeDefined();
      expect(resources[groupId!]?.Type).toBe("AWS::Logs::LogGroup");
      expect(resources[groupId!]?.Properties.RetentionInDays).toBe(90);
    }
  });

  it("least privilege: own role (no managed policy), no wildcard actions, each grant only where the function needs it", () => {
    const roleOf = (name: keyof typeof stack.functions) => logicalId(stack.functions[name].role);
    for (const [, fn] of lambdas) {
      const roleId = fn.Properties.Role["Fn::GetAtt"][0] as string;
      expect(resources[roleId]?.Properties.ManagedPolicyArns).toBeUndefined();
      for (const action of actionsOf(roleId)) expect(action === "*" || /^[a-z0-9-]+:\*$/.test(action), action).toBe(false);
    }
    const startsPipeline = (name: keyof typeof stack.functions) => actionsOf(roleOf(name)).includes("states:StartExecution");
    expect(startsPipeline("ingress")).toBe(true);
    expect(startsPipeline("start-run")).toBe(true);
    for (const name of ["create-task", "analyze-task", "poll-session", "freee-mcp"] as const) expect(startsPipeline(name)).toBe(false);
    expect(actionsOf(roleOf("ingress"))).toContain("states:SendTaskSuccess");
    expect(actionsOf(roleOf("await-approval"))).not.toContain("states:SendTaskSuccess");
    const readsSecret = (name: keyof typeof stack.functions, secret: (typeof SECRET_NAMES)[number]) =>
      statementsOf(roleOf(name)).some((s) => JSON.stringify(s.Resource).includes(logicalId(stack.data.secrets[secret])));
    expect(readsSecret("analyze-task", "ANTHROPIC_API_KEY")).toBe(true);
    expect(readsSecret("create-task", "ANTHROPIC_API_KEY")).toBe(false);
    expect(readsSecret("start-session", "MCP_BEARER_SECRET")).toBe(true);
    expect(readsSecret("poll-session", "MCP_BEARER_SECRET")).toBe(false);
    expect(readsSecret("ingress", "SLACK_SIGNING_SECRET")).toBe(true);
    expect(readsSecret("analyze-task", "SLACK_SIGNING_SECRET")).toBe(false);
    const tokenKey = logicalId(stack.data.tokenKey);
    const tokenKeyActions = (name: keyof typeof stack.functions) =>
      statementsOf(roleOf(name)).filter((s) => JSON.stringify(s.Resource).includes(tokenKey)).flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    // freee tokens and Slack installations are sealed by the public functions, opened by the steps' cards.
    expect(tokenKeyActions("freee-mcp")).toEqual(expect.arrayContaining(["kms:Encrypt", "kms:Decrypt"]));
    // The install and freee connect pages (web) store tokens; the Slack ingress opens installations and seals
    // plain ones, and holds neither OAuth client secret.
    expect(tokenKeyActions("web")).toEqual(expect.arrayContaining(["kms:Encrypt", "kms:Decrypt"]));
    expect(tokenKeyActions("ingress")).toEqual(expect.arrayContaining(["kms:Encrypt", "kms:Decrypt"]));
    expect(readsSecret("web", "SLACK_CLIENT_SECRET")).toBe(true);
    expect(readsSecret("ingress", "SLACK_CLIENT_SECRET")).toBe(false);
    expect(readsSecret("ingress", "FREEE_CLIENT_SECRET")).toBe(false);
    expect(startsPipeline("web")).toBe(false);
    // The freee callback ends the approval waits of plans a company switch invalidated: failure only.
    expect(actionsOf(roleOf("web")).filter((a) => a.startsWith("states:"))).toEqual(["states:SendTaskFailure"]);
    expect(tokenKeyActions("poll-session")).toEqual(["kms:Decrypt"]);
    // The preview reads freee with the workspace's connection: its token key and the freee app, nothing of L1–L4.
    expect(tokenKeyActions("preview-process")).toEqual(expect.arrayContaining(["kms:Encrypt", "kms:Decrypt"]));
    expect(readsSecret("preview-process", "FREEE_CLIENT_SECRET")).toBe(true);
    expect(readsSecret("preview-process", "FREEE_CLIENT_ID")).toBe(true);
    for (const secret of ["ANTHROPIC_API_KEY", "MCP_BEARER_SECRET", "SLACK_SIGNING_SECRET"] as const) expect(readsSecret("preview-process", secret), secret).toBe(false);
    expect(startsPipeline("preview-process")).toBe(false);
    for (const name of ["generate-process", "await-approval"] as const) expect(readsSecret(name, "FREEE_CLIENT_SECRET"), name).toBe(false);
  });

  it("settings reach the functions (defaults)", () => {
    template.hasResourceProperties("AWS::Lambda::Function", {
      Environment: { Variables: Match.objectLike({ POLL_INTERVAL_SECONDS: "3", RUN_TIMEOUT_SECONDS: "360", MAX_REGENERATIONS: "5", MAX_RERUNS: "3", APPROVAL_TIMEOUT_SECONDS: "604800" }) },
    });
  });
});

describe("data", () => {
  it("the table: pk/sk, GSI byTeam, TTL, PITR, KMS (customer managed key)", () => {
    template.hasResourceProperties("AWS::DynamoDB::Table", {
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: "HASH" },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: "RANGE" },
      ],
      GlobalSecondaryIndexes: [Match.objectLike({ IndexName: TABLE_KEYS.byTeamIndex })],
      TimeToLiveSpecification: { AttributeName: TABLE_KEYS.ttlAttribute, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true, SSEType: "KMS", KMSMasterKeyId: Match.anyValue() },
    });
    expect(ofType("AWS::KMS::Key").every(([, k]) => k.Properties.EnableKeyRotation === true)).toBe(true);
  });

  it("one secret per setting, no value in the template", () => {
    const secrets = ofType("AWS::SecretsManager::Secret");
    expect(secrets).toHaveLength(SECRET_NAMES.length);
    for (const [, s] of secrets) expect(s.Properties.SecretString).toBeUndefined();
  });
});

describe("public entry points and outputs", () => {
  it("Function URLs (auth NONE) for the Slack ingress, the web pages and the freee MCP server", () => {
    const urls = ofType("AWS::Lambda::Url");
    expect(urls).toHaveLength(3);
    const targets = urls.map(([, u]) => u.Properties.TargetFunctionArn["Fn::GetAtt"][0]);
    expect(targets.sort()).toEqual([logicalId(stack.functions["freee-mcp"].fn), logicalId(stack.functions.ingress.fn), logicalId(stack.functions.web.fn)].sort());
    expect(urls.every(([, u]) => u.Properties.AuthType === "NONE")).toBe(true);
  });

  it("outputs every URL the Slack manifest and the freee app need", () => {
    const outputs = template.toJSON().Outputs as Record<string, unknown>;
    for (const name of ["IngressUrl", "SlackEventsUrl", "WebUrl", "SlackInstallUrl", "SlackOAuthRedirectUrl", "FreeeConnectUrl", "FreeeCallbackUrl", "FreeeMcpUrl"]) {
      expect(outputs[name], name).toBeDefined();
    }
    expect(JSON.stringify(outputs.SlackEventsUrl)).toContain("slack/events");
    expect(JSON.stringify(outputs.FreeeCallbackUrl)).toContain("freee/callback");
  });
});

describe("state machines", () => {
  const machines = ofType("AWS::StepFunctions::StateMachine");
  it("two Standard machines, logged (ALL) and traced", () => {
    expect(machines).toHaveLength(2);
    for (const [, m] of machines) {
      expect(m.Properties.StateMachineType).toBe("STANDARD");
      expect(m.Properties.LoggingConfiguration.Level).toBe("ALL");
      expect(m.Properties.TracingConfiguration).toEqual({ Enabled: true });
    }
  });

  it("the Retry rows are the error table: names from the taxonomy, counts from docs/architecture.md", () => {
    const definition = JSON.stringify(machines.map(([, m]) => m.Properties.DefinitionString));
    for (const name of [...ErrorNames.transient, ...ErrorNames.timeout, ...ErrorNames.silentRetryOnce, ...ErrorNames.malformed]) expect(definition).toContain(name);
    for (const name of ErrorNames.noRetry) expect(definition).not.toContain(`"${name}"`);
  });
});

describe("settings from context", () => {
  it("limits, models and the public base URL come from context (the defaults otherwise)", () => {
    const { template: t } = synthTemplate({ maxRegenerations: "2", runTimeoutSeconds: 120, l2Model: "claude-opus-4-1", publicBaseUrl: "https://bot.example.com/", adminUserIds: "UADMIN1,UADMIN2" });
    t.hasResourceProperties("AWS::Lambda::Function", {
      Environment: { Variables: Match.objectLike({ MAX_REGENERATIONS: "2", RUN_TIMEOUT_SECONDS: "120", L2_MODEL: "claude-opus-4-1", ADMIN_USER_IDS: "UADMIN1,UADMIN2" }) },
    });
    // The web pages serve the freee callback there; the Slack ingress links App Home's connect button to it.
    t.hasResourceProperties("AWS::Lambda::Function", { Environment: { Variables: Match.objectLike({ PUBLIC_BASE_URL: "https://bot.example.com", FREEE_CLIENT_ID_SECRET_ARN: Match.anyValue() }) } });
    t.hasResourceProperties("AWS::Lambda::Function", { Environment: { Variables: Match.objectLike({ FREEE_CONNECT_BASE_URL: "https://bot.example.com", TASK_PIPELINE_ARN: Match.anyValue() }) } });
    expect(() => synthTemplate({ maxReruns: "three" })).toThrow(/maxReruns/);
  });
});
