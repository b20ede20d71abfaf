import { GetCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { MalformedOutputError } from "../core/errors/taxonomy";
import { translateDynamoError } from "./conditional";
import type { ConnectionStatus } from "./freee-connections";
import { DISCONNECTED } from "./freee-disconnect";
import { Keys } from "./table";

export type HomeConnectionStatus = { status: "connected" | "reauth_required" | "not_connected"; companyName?: string };

const STATUSES: readonly ConnectionStatus[] = ["active", "reauth_required"];

/**
 * App Home's view of a workspace's freee connection: status and company name, read without the tokens (a
 * projection of the connection item; no decryption, no token endpoint). The Slack Lambda needs only this, so
 * it does not carry the OAuth flow, the token cipher or their schemas.
 */
export async function readConnectionStatus(doc: DynamoDBDocumentClient, tableName: string, teamId: string): Promise<HomeConnectionStatus> {
  let item: Record<string, unknown> | undefined;
  try {
    const out = await doc.send(
      new GetCommand({
        TableName: tableName,
        Key: Keys.freeeConnection(teamId),
        ProjectionExpression: "#s, companyName",
        ExpressionAttributeNames: { "#s": "status" },
      }),
    );
    item = out.Item;
  } catch (err) {
    throw translateDynamoError(err, "freee connection status");
  }
  if (item === undefined || item.status === DISCONNECTED) return { status: "not_connected" };
  const status = item.status as ConnectionStatus;
  if (!STATUSES.includes(status)) throw new MalformedOutputError("stored freee connection has an unknown status", { details: { teamId } });
  const companyName = typeof item.companyName === "string" ? item.companyName : undefined;
  return { status: status === "active" ? "connected" : "reauth_required", ...(companyName === undefined ? {} : { companyName }) };
}
