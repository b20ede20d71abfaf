import type { Logger } from "@aws-lambda-powertools/logger";
import type { AuditEntry, Layer } from "../core/domain/records";
import { redact, redactString } from "../core/redaction/redact";
import type { EntryState, TaskStore, WriteResult } from "./task-store";

export interface AuditEvent {
  teamId: string;
  taskId?: string;
  /** `task.created`, `prompt.rejected`, `execution.started`, `error.L3`… */
  action: string;
  /**
   * What the entry is about, with its version or attempt: `prompt#2`, `execution#1`. With the action it forms
   * the audit key, so writing the same event twice (a retried Lambda, a redelivered event) stores it once.
   */
  subject: string;
  actor: string;
  layer?: Layer;
  details?: Record<string, unknown>;
  /** The time of what it records, when that was earlier than the write (a promised entry: pending-audit.ts). */
  at?: string;
}

/**
 * docs/architecture.md (error table): every error and every state change is recorded — in the table (the audit trail a user and the
 * ledger report read) and as a structured log line (layer, error_type, error_message, context).
 */
export class AuditLog {
  constructor(
    private readonly store: Pick<TaskStore, "appendAudit">,
    private readonly log: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async record(event: AuditEvent): Promise<WriteResult<AuditEntry>> {
    const entry = this.entryOf(event);
    const result = await this.store.appendAudit(entry);
    if (result.applied) this.logRecorded(event, entry);
    return result;
  }

  /**
   * Record an event in the same transaction as its effect (lib/store `…WithEntry`): `write` commits the effect and
   * this entry together, or neither, and returns its result with what became of the entry (`entry`), which this
   * returns to the caller. One the effect's refusal left unwritten (the effect was done already, by an earlier
   * write that did not carry this entry) is appended on its own.
   */
  async recordWith<R extends { entry?: EntryState }>(event: AuditEvent, write: (entry: AuditEntry) => Promise<R>): Promise<R> {
    const entry = this.entryOf(event);
    const result = await write(entry);
    if (result.entry === undefined) throw new Error(`${event.action}: the write given an audit entry did not say what became of it`);
    if (result.entry === "written") this.logRecorded(event, entry);
    if (result.entry === "missing") await this.record(event);
    return result;
  }

  /** The entry an event becomes (its key, time and redacted details), not yet written. */
  entryOf(event: AuditEvent): AuditEntry {
    return {
      teamId: event.teamId,
      taskId: event.taskId,
      auditKey: `${event.action}#${event.subject}`,
      at: event.at ?? this.clock().toISOString(),
      action: event.action,
      actor: event.actor,
      layer: event.layer,
      details: redact(event.details ?? {}),
    };
  }

  private logRecorded(event: AuditEvent, entry: AuditEntry): void {
    this.log.info(event.action, { layer: event.layer, taskId: event.taskId, teamId: event.teamId, actor: event.actor, subject: event.subject, details: entry.details });
  }

  /** An error of one layer: audit entry `error.<layer>` plus the structured error log line (docs/architecture.md, error table). */
  async recordError(event: Omit<AuditEvent, "action"> & { layer: Layer; error: unknown }): Promise<WriteResult<AuditEntry>> {
    const err = event.error instanceof Error ? event.error : new Error(String(event.error));
    const errorMessage = redactString(err.message);
    const entry: AuditEntry = {
      teamId: event.teamId,
      taskId: event.taskId,
      auditKey: `error.${event.layer}#${event.subject}`,
      at: this.clock().toISOString(),
      action: `error.${event.layer}`,
      actor: event.actor,
      layer: event.layer,
      errorType: err.name,
      errorMessage,
      details: redact({ ...(event.details ?? {}), ...appErrorDetails(err) }),
    };
    this.log.error(`${event.layer} failed: ${err.name}`, {
      layer: event.layer,
      error_type: err.name,
      error_message: errorMessage,
      taskId: event.taskId,
      teamId: event.teamId,
      subject: event.subject,
      details: entry.details,
      error: err,
    });
    return this.store.appendAudit(entry);
  }
}

/** An AppError's details and its cause chain (name and message of each, a few deep). */
function appErrorDetails(err: Error): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const details = (err as { details?: unknown }).details;
  if (details && typeof details === "object") Object.assign(out, details);
  const causes: unknown[] = [];
  let cause = (err as { cause?: unknown }).cause;
  for (let depth = 0; depth < MAX_CAUSES && cause !== undefined && cause !== null; depth++) {
    // Redacted before it is cut: half a token is still a leak.
    causes.push(cause instanceof Error ? { name: cause.name, message: redactString(cause.message).slice(0, 1000) } : redact(cause));
    cause = cause instanceof Error ? (cause as { cause?: unknown }).cause : undefined;
  }
  if (causes.length > 0) out.cause = causes.length === 1 ? causes[0] : causes;
  return out;
}

const MAX_CAUSES = 4;
