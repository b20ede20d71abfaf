import { AuditEntrySchema, type AuditEntry } from "../domain/records";
import { parseRecord, type ItemTable, type WriteResult } from "./item-table";
import { Keys, TABLE_KEYS } from "./table";

/** Audit entries: in the task's partition (or the team's, for entries with no task), and by workspace on the GSI. */
export class AuditEntries {
  constructor(private readonly table: ItemTable) {}

  /** Append an audit entry once: the key derives from what it records, so a retried step does not duplicate it. */
  async append(entry: AuditEntry): Promise<WriteResult<AuditEntry>> {
    const record = AuditEntrySchema.parse(entry);
    const item = {
      ...Keys.audit(record.taskId, record.teamId, record.auditKey),
      [TABLE_KEYS.byTeamPartitionKey]: Keys.teamAuditIndex(record.teamId),
      [TABLE_KEYS.byTeamSortKey]: `${record.at}#${record.taskId ?? "-"}#${record.auditKey}`,
      recordType: "audit",
      ...record,
    };
    const write = await this.table.writeIf({ put: { Item: item, ConditionExpression: "attribute_not_exists(pk)" } }, "appendAudit");
    if (write.applied) return { record, applied: true };
    return { record: parseRecord(AuditEntrySchema, await write.current(), "audit"), applied: false };
  }

  /** Audit entries of a workspace in a time window, oldest first (GSI byTeam). */
  async listByTeam(teamId: string, window: { since?: string; until?: string; limit?: number } = {}): Promise<AuditEntry[]> {
    const since = window.since ?? "0000";
    const until = `${window.until ?? "9999"}\uffff`;
    const items = await this.table.query(
      {
        IndexName: TABLE_KEYS.byTeamIndex,
        KeyConditionExpression: "#gpk = :gpk AND #gsk BETWEEN :since AND :until",
        ExpressionAttributeNames: { "#gpk": TABLE_KEYS.byTeamPartitionKey, "#gsk": TABLE_KEYS.byTeamSortKey },
        ExpressionAttributeValues: { ":gpk": Keys.teamAuditIndex(teamId), ":since": since, ":until": until },
      },
      window.limit,
    );
    return items.map((item) => parseRecord(AuditEntrySchema, item, "audit"));
  }
}
