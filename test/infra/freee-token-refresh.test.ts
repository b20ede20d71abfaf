import { describe, expect, it } from "vitest";
import { Keys, TABLE_KEYS } from "../../lib/store/table";
import { ONE_REFRESH_WORST_MS } from "../../lib/freee/token-refresher";
import { synthTemplate } from "./synth";

/** The daily freee token refresh in the stack: scheduled, given only what it uses. */

const { stack, template } = synthTemplate();
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
const logicalId = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as never);
const fn = stack.functions["refresh-freee-tokens"];
const fnId = logicalId(fn.fn);
const statements = Object.values(resources)
  .filter((r) => r.Type === "AWS::IAM::Policy" && (r.Properties.Roles as { Ref: string }[]).some((x) => x.Ref === logicalId(fn.role)))
  .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[]);
const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));

describe("refresh-freee-tokens", () => {
  it("runs once a day from an EventBridge schedule, retried twice", () => {
    const rules = Object.values(resources).filter((r) => r.Type === "AWS::Events::Rule" && JSON.stringify(r.Properties.Targets).includes(fnId));
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Properties).toMatchObject({ ScheduleExpression: "rate(1 day)", State: "ENABLED" });
    expect(rules[0]!.Properties.Targets[0].RetryPolicy).toMatchObject({ MaximumRetryAttempts: 2 });
    const permission = Object.values(resources).find((r) => r.Type === "AWS::Lambda::Permission" && JSON.stringify(r.Properties.FunctionName).includes(fnId));
    expect(permission?.Properties.Principal).toBe("events.amazonaws.com");
  });

  it("gets the 60-day default, the token key and the freee app credentials", () => {
    const props = resources[fnId]!.Properties;
    expect(props.Environment.Variables).toMatchObject({ FREEE_REFRESH_AFTER_DAYS: "60" });
    expect(Object.keys(props.Environment.Variables)).toEqual(expect.arrayContaining(["TABLE_NAME", "TOKEN_KMS_KEY_ID", "FREEE_CLIENT_ID_SECRET_ARN", "FREEE_CLIENT_SECRET_SECRET_ARN"]));
    // Its timeout leaves room for at least one whole refresh after the last one it starts.
    expect(props.Timeout * 1000).toBeGreaterThan(2 * ONE_REFRESH_WORST_MS);
  });

  it("least privilege: TEAM# items (get / update / audit put), the FREEE#REFRESH partition of the index, nothing else", () => {
    const dynamo = statements.filter((s) => JSON.stringify(s.Action).includes("dynamodb:"));
    expect(dynamo.flatMap((s) => s.Action).sort()).toEqual(["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"]);
    for (const s of dynamo) expect(s.Condition, JSON.stringify(s)).toBeDefined();
    expect(JSON.stringify(dynamo)).toContain('"TEAM#*"');
    expect(JSON.stringify(dynamo)).toContain(`/index/${TABLE_KEYS.byTeamIndex}`);
    expect(JSON.stringify(dynamo)).toContain(Keys.freeeRefreshIndex);
    for (const forbidden of ["dynamodb:Scan", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem", "states:StartExecution", "states:SendTaskSuccess"]) {
      expect(actions).not.toContain(forbidden);
    }
    const secretsRead = statements.filter((s) => JSON.stringify(s.Action).includes("secretsmanager:GetSecretValue")).map((s) => JSON.stringify(s.Resource));
    expect(secretsRead).toHaveLength(2);
    expect(secretsRead.join()).toContain(logicalId(stack.data.secrets.FREEE_CLIENT_SECRET));
    expect(secretsRead.join()).not.toContain(logicalId(stack.data.secrets.SLACK_SIGNING_SECRET));
  });
});
