import { GetCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { FatalConfigError } from "../core/errors/taxonomy";
import { translateDynamoError } from "./conditional";
import { ItemTable } from "./item-table";
import { Keys } from "./table";

/** The app's one Managed Agents pair, kept under `Keys.appConfig("managed-agent")` (lib/model/agent/agent-setup.ts). */
export const AGENT_SETUP_CONFIG_NAME = "managed-agent";

export interface AgentSetup {
  agentId: string;
  environmentId: string;
  fingerprint: string;
}

export async function readAgentSetup(doc: DynamoDBDocumentClient, tableName: string): Promise<AgentSetup | undefined> {
  let item: Record<string, unknown> | undefined;
  try {
    const out = await doc.send(new GetCommand({ TableName: tableName, Key: Keys.appConfig(AGENT_SETUP_CONFIG_NAME), ConsistentRead: true }));
    item = out.Item;
  } catch (err) {
    throw translateDynamoError(err, "agent setup read");
  }
  if (item === undefined) return undefined;
  const { agentId, environmentId, fingerprint } = item;
  if (typeof agentId !== "string" || typeof environmentId !== "string" || typeof fingerprint !== "string") {
    throw new FatalConfigError("managed agent setup item is malformed", { details: { keys: Object.keys(item) } });
  }
  return { agentId, environmentId, fingerprint };
}

/**
 * Put if no setup exists, or replace the one of an older definition (`previousFingerprint`). False when another
 * writer got there first (the condition failed); any other failure is thrown, translated.
 */
export async function putAgentSetup(
  doc: DynamoDBDocumentClient,
  tableName: string,
  setup: AgentSetup & { mcpServerUrl: string; createdAt: string },
  previousFingerprint: string | undefined,
): Promise<boolean> {
  const outcome = await new ItemTable(doc, tableName).writeIf(
    {
      put: {
        Item: { ...Keys.appConfig(AGENT_SETUP_CONFIG_NAME), ...setup },
        ...(previousFingerprint === undefined
          ? { ConditionExpression: "attribute_not_exists(pk)" }
          : { ConditionExpression: "fingerprint = :previous", ExpressionAttributeValues: { ":previous": previousFingerprint } }),
      },
    },
    "agent setup write",
  );
  return outcome.applied;
}
