import { UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { isConditionFailure, translateDynamoError } from "./conditional";
import { Keys } from "./table";

/** The status a disconnected connection item keeps (who, when), without tokens. Read as "not connected". */
export const DISCONNECTED = "disconnected";

/**
 * An admin disconnects the workspace from freee (App Home): the stored tokens are removed from the connection
 * item (and from a parked refresh, FREEE#PENDING), it leaves the refresh index, and its version rises, so a
 * refresh in flight (conditional on the old version) cannot write tokens back. UpdateItem only: no role needs
 * DeleteItem. The tokens are not revoked at freee (the Slack Lambda holds no freee client secret); they are no
 * longer held anywhere in the app. A reconnect (the OAuth callback's save) makes the item active again.
 */
export async function disconnectFreee(
  doc: DynamoDBDocumentClient,
  tableName: string,
  input: { teamId: string; by: string; at: string },
): Promise<{ disconnected: true; version: number } | { disconnected: false }> {
  let version: number;
  try {
    const out = await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: Keys.freeeConnection(input.teamId),
        UpdateExpression:
          "SET #status = :disc, disconnectedBy = :by, disconnectedAt = :at, updatedAt = :at, version = version + :one " +
          "REMOVE tokens, cipher, gsi1pk, gsi1sk, refreshLeaseOwner, refreshLeaseUntil, reauthReason",
        ConditionExpression: "attribute_exists(pk) AND #status <> :disc",
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: { ":disc": DISCONNECTED, ":by": input.by, ":at": input.at, ":one": 1 },
        ReturnValues: "UPDATED_NEW",
      }),
    );
    version = Number(out.Attributes?.version);
  } catch (err) {
    // Not connected, or already disconnected (a double click): nothing to do.
    if (isConditionFailure(err)) return { disconnected: false };
    throw translateDynamoError(err, "freee disconnect");
  }
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: Keys.freeePendingTokens(input.teamId),
        UpdateExpression: "REMOVE tokens",
        ConditionExpression: "attribute_exists(tokens)",
      }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw translateDynamoError(err, "freee disconnect (parked tokens)");
  }
  return { disconnected: true, version };
}
