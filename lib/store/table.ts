import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";

/** The single table (docs/architecture.md, data model). Shared by the CDK stack, the local stack and the tests. */
export const TABLE_KEYS = {
  partitionKey: "pk",
  sortKey: "sk",
  byTeamIndex: "byTeam",
  byTeamPartitionKey: "gsi1pk",
  byTeamSortKey: "gsi1sk",
  ttlAttribute: "expiresAt",
} as const;

export function createTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: TABLE_KEYS.partitionKey, AttributeType: "S" },
      { AttributeName: TABLE_KEYS.sortKey, AttributeType: "S" },
      { AttributeName: TABLE_KEYS.byTeamPartitionKey, AttributeType: "S" },
      { AttributeName: TABLE_KEYS.byTeamSortKey, AttributeType: "S" },
    ],
    KeySchema: [
      { AttributeName: TABLE_KEYS.partitionKey, KeyType: "HASH" },
      { AttributeName: TABLE_KEYS.sortKey, KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: TABLE_KEYS.byTeamIndex,
        KeySchema: [
          { AttributeName: TABLE_KEYS.byTeamPartitionKey, KeyType: "HASH" },
          { AttributeName: TABLE_KEYS.byTeamSortKey, KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "ALL" },
      },
    ],
  };
}

/**
 * The partition key prefixes. Each Lambda's IAM policy grants its DynamoDB actions per prefix (condition
 * `dynamodb:LeadingKeys`, infra/table-access.ts), so every key below starts with one of these.
 */
export const PARTITIONS = { task: "TASK#", team: "TEAM#", installation: "INSTALL#", config: "CONFIG#" } as const;
export type PartitionPrefix = (typeof PARTITIONS)[keyof typeof PARTITIONS];
const { task: TASK, team: TEAM, installation: INSTALL, config: CONFIG } = PARTITIONS;

/** Key builders: every item's address is spelled in this one place. */
export const Keys = {
  task: (taskId: string) => ({ pk: `${TASK}${taskId}`, sk: "META" }),
  taskPartition: (taskId: string) => `${TASK}${taskId}`,
  version: (taskId: string, kind: "prompt" | "process", version: number) => ({
    pk: `${TASK}${taskId}`,
    sk: `${kind === "prompt" ? "PROMPT" : "PROCESS"}#${pad(version)}`,
  }),
  execution: (taskId: string, executionNo: number) => ({ pk: `${TASK}${taskId}`, sk: `EXEC#${pad(executionNo)}` }),
  audit: (taskId: string | undefined, teamId: string, auditKey: string) => ({
    pk: taskId === undefined ? `${TEAM}${teamId}` : `${TASK}${taskId}`,
    sk: `AUDIT#${auditKey}`,
  }),
  installation: (installationId: string) => ({ pk: `${INSTALL}${installationId}`, sk: "INSTALL" }),
  freeeConnection: (teamId: string) => ({ pk: `${TEAM}${teamId}`, sk: "FREEE" }),
  /** Refreshed freee tokens not yet in the connection item (its write failed): promoted by the next refresh. */
  freeePendingTokens: (teamId: string) => ({ pk: `${TEAM}${teamId}`, sk: "FREEE#PENDING" }),
  /** A one-time freee connect link or OAuth state, marked when first used (lib/freee/connect-link.ts). */
  freeeOneTimeUse: (teamId: string, kind: "link" | "state", id: string) => ({ pk: `${TEAM}${teamId}`, sk: `FREEE#USED#${kind}#${id}` }),
  /** byTeam index partition of every freee connection, sorted by refresh-token issue time (the scheduled refresh). */
  freeeRefreshIndex: "FREEE#REFRESH",
  teamSettings: (teamId: string) => ({ pk: `${TEAM}${teamId}`, sk: "SETTINGS" }),
  appConfig: (name: string) => ({ pk: `${CONFIG}${name}`, sk: "CONFIG" }),
  /** An approved write step of a Task (lib/store/write-ledger.ts): written at most once per Task, across reruns. */
  toolWrite: (taskId: string, processVersion: number, stepId: string) => ({ pk: `${TASK}${taskId}`, sk: `WRITE#p${pad(processVersion)}#${stepId}` }),
  teamTasksIndex: (teamId: string) => `TEAM#${teamId}#TASKS`,
  teamAuditIndex: (teamId: string) => `TEAM#${teamId}#AUDIT`,
} as const;

export function pad(n: number): string {
  return String(n).padStart(4, "0");
}
