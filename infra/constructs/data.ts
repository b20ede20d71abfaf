import { RemovalPolicy } from "aws-cdk-lib";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as kms from "aws-cdk-lib/aws-kms";
import * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";
import { TABLE_KEYS } from "../../lib/store/table";

/**
 * The secrets of the stack; the name is the env var prefix the Lambdas read (`<NAME>_SECRET_ARN`).
 * CloudFormation cannot create a secret without a value, so each starts with a random generated string (never a
 * value in the template). The operator overwrites the third-party ones after the first deploy (docs/infra.md);
 * until then Slack signatures fail to verify and Anthropic answers 401 (FatalConfigError). The generated value
 * IS the final value of SLACK_STATE_SECRET, FREEE_STATE_SECRET and MCP_BEARER_SECRET (our own HMAC keys).
 */
// In a CDK-free module: `npm run smoke` reads them without loading aws-cdk-lib.
export { OPERATOR_SECRETS, SECRET_NAMES, secretOutputName, type SecretName } from "../secret-names";
import { OPERATOR_SECRETS, SECRET_NAMES, type SecretName } from "../secret-names";

/** The table (docs/architecture.md, data model), its KMS key, the token key, and the operator-filled secrets. */
export class DataConstruct extends Construct {
  readonly table: dynamodb.Table;
  readonly tableKey: kms.Key;
  readonly tokenKey: kms.Key;
  readonly secrets: Record<SecretName, secretsmanager.Secret>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.tableKey = new kms.Key(this, "TableKey", {
      description: "slack-mcp-agent: DynamoDB table encryption",
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.tokenKey = new kms.Key(this, "TokenKey", {
      description: "slack-mcp-agent: freee OAuth token encryption (envelope, per item)",
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Table (not TableV2): TableV2 with a customer managed key needs a region-bound stack; this one synths offline.
    this.table = new dynamodb.Table(this, "Table", {
      partitionKey: { name: TABLE_KEYS.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sortKey, type: dynamodb.AttributeType.STRING },
      timeToLiveAttribute: TABLE_KEYS.ttlAttribute,
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.tableKey,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: TABLE_KEYS.byTeamIndex,
      partitionKey: { name: TABLE_KEYS.byTeamPartitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.byTeamSortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });
    this.secrets = Object.fromEntries(
      SECRET_NAMES.map((name) => [
        name,
        new secretsmanager.Secret(this, pascal(name), {
          description: OPERATOR_SECRETS.includes(name)
            ? `slack-mcp-agent ${name}: put the real value after deploy (docs/infra.md)`
            : `slack-mcp-agent ${name}: generated at deploy, nothing to fill`,
          generateSecretString: { passwordLength: 48, excludePunctuation: true },
          removalPolicy: RemovalPolicy.RETAIN,
        }),
      ]),
    ) as Record<SecretName, secretsmanager.Secret>;
  }
}

function pascal(name: string): string {
  return name
    .toLowerCase()
    .split("_")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");
}
