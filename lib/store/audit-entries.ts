import { AuditEntrySchema, type AuditEntry } from "../core/domain/records";
import { parseRecord, type ConditionalWrite, type EntryState, type Item, type ItemTable, type WriteOutcome, type WriteResult } from "./item-table";
import { Keys, TABLE_KEYS } from "./table";

/** The item of an audit entry: its key derives from what it records (write-once), plus the byTeam index keys. */
export function auditItem(entry: AuditEntry): Item {
  const record = AuditEntrySchema.parse(entry);
  return {
    ...Keys.audit(record.taskId, record.teamId, record.auditKey),
    [TABLE_KEYS.byTeamPartitionKey]: Keys.teamAuditIndex(record.teamId),
    [TABLE_KEYS.byTeamSortKey]: `${record.at}#${record.taskId ?? "-"}#${record.auditKey}`,
    recordType: "audit",
    ...record,
  };
}

/**
 * A conditional write with its audit entry in one transaction (`ItemTable.writeWithEntries`), or alone when there is
 * no entry to carry. `entry`: what became of the entry (absent when none was given).
 */
export async function writeAudited(table: ItemTable, write: ConditionalWrite, where: string, entry: AuditEntry | undefined): Promise<{ outcome: WriteOutcome; entry?: EntryState }> {
  if (entry === undefined) return { outcome: await table.writeIf(write, where) };
  const { outcome, entries } = await table.writeWithEntries(write, [auditItem(entry)], where);
  return { outcome, entry: entries[0]! };
}

/** Audit entries: in the task's partition (or the team's, for entries with no task), and by workspace on the GSI. */
export class AuditEntries {
  constructor(private readonly table: ItemTable) {}

  /** Append an audit entry once: the key derives from what it records, so a retried step does not duplicate it. */
  async append(entry: AuditEntry): Promise<WriteResult<AuditEntry>> {
    const record = AuditEntrySchema.parse(entry);
    const item = auditItem(record);
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
