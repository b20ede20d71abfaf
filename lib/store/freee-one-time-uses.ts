import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { ItemTable } from "./item-table";
import { Keys, TABLE_KEYS } from "./table";

/**
 * Connect links and OAuth states are single-use: the first use writes a marker under the workspace (conditional
 * PutItem, kept until the link or state expires, then removed by TTL); a second use finds it and is refused.
 */
export class OneTimeUses {
  private readonly table: ItemTable;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new ItemTable(doc, tableName);
  }

  /** True for the first use of `id`, false for any later one. */
  async consume(teamId: string, kind: "link" | "state", id: string, expiresAtSeconds: number, at: Date): Promise<boolean> {
    const outcome = await this.table.writeIf(
      {
        put: {
          Item: { ...Keys.freeeOneTimeUse(teamId, kind, id), recordType: "freee_one_time_use", teamId, usedAt: at.toISOString(), [TABLE_KEYS.ttlAttribute]: expiresAtSeconds + 60 },
          ConditionExpression: "attribute_not_exists(pk)",
        },
      },
      `freee ${kind} use`,
    );
    return outcome.applied;
  }
}
