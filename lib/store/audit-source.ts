import { ScanCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { AuditEntrySchema, type AuditEntry } from "../core/domain/records";
import { translateDynamoError } from "./conditional";
import type { TaskStore } from "./task-store";

export interface AuditWindow {
  since: string;
  until: string;
  teamId?: string;
}

/**
 * Audit entries of a period: one workspace through the byTeam index, or every workspace by a filtered Scan
 * (an operator's report, not a request path).
 */
export async function readAuditEntries(deps: { store: TaskStore; doc: DynamoDBDocumentClient; tableName: string }, window: AuditWindow): Promise<AuditEntry[]> {
  if (window.teamId !== undefined) {
    return deps.store.listAuditByTeam(window.teamId, { since: window.since, until: window.until });
  }
  const entries: AuditEntry[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    let out;
    try {
      out = await deps.doc.send(
        new ScanCommand({
          TableName: deps.tableName,
          FilterExpression: "recordType = :audit AND #at BETWEEN :since AND :until",
          ExpressionAttributeNames: { "#at": "at" },
          ExpressionAttributeValues: { ":audit": "audit", ":since": window.since, ":until": `${window.until}\uffff` },
          ExclusiveStartKey: startKey,
        }),
      );
    } catch (err) {
      throw translateDynamoError(err, "report scan");
    }
    for (const item of out.Items ?? []) entries.push(AuditEntrySchema.parse(item));
    startKey = out.LastEvaluatedKey;
  } while (startKey !== undefined);
  return entries;
}
