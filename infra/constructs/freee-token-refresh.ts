import { grantTokenKey } from "../key-access";
import { Duration } from "aws-cdk-lib";
import * as events from "aws-cdk-lib/aws-events";
import * as targets from "aws-cdk-lib/aws-events-targets";
import * as iam from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";
import { Keys, TABLE_KEYS } from "../../lib/store/table";
import type { AppFunction } from "./app-function";
import type { DataConstruct } from "./data";

/** The function runs at most this long; it starts a workspace's refresh only while one fits (ONE_REFRESH_WORST_MS). */
export const REFRESH_FREEE_TOKENS_TIMEOUT_SECONDS = 300;

/**
 * The daily freee token refresh (lambdas/refresh-freee-tokens): an EventBridge schedule and exactly the access
 * that function needs — the freee connections and their parked tokens and workspace audit entries (`TEAM#`
 * items: get, update, the audit put), the byTeam index's `FREEE#REFRESH` partition (the due list), the token key
 * and the freee app credentials. Nothing else of the table, no Slack, no Step Functions.
 */
export class FreeeTokenRefresh extends Construct {
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: { fn: AppFunction; data: DataConstruct; schedule?: events.Schedule }) {
    super(scope, id);
    const { fn, data } = props;
    fn.fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ["dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:PutItem"],
        resources: [data.table.tableArn],
        conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["TEAM#*"] } },
      }),
    );
    fn.fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ["dynamodb:Query"],
        resources: [`${data.table.tableArn}/index/${TABLE_KEYS.byTeamIndex}`],
        conditions: { "ForAllValues:StringEquals": { "dynamodb:LeadingKeys": [Keys.freeeRefreshIndex] } },
      }),
    );
    // The table's own key (customer managed), as CDK's table grants add it.
    data.tableKey.grant(fn.fn, "kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*");
    grantTokenKey(data, fn.fn, "freee", { decrypt: true, encrypt: true });
    data.secrets.FREEE_CLIENT_ID.grantRead(fn.fn);
    data.secrets.FREEE_CLIENT_SECRET.grantRead(fn.fn);
    this.rule = new events.Rule(this, "Schedule", {
      description: "slack-mcp-agent: refresh freee tokens older than FREEE_REFRESH_AFTER_DAYS (freee refresh tokens lapse after 90 days)",
      schedule: props.schedule ?? events.Schedule.rate(Duration.days(1)),
      targets: [new targets.LambdaFunction(fn.fn, { retryAttempts: 2, maxEventAge: Duration.hours(6) })],
    });
  }
}
