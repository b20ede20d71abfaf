import { TransientError } from "../core/errors/taxonomy";
import type { AdminReads } from "./deps";

/**
 * A page could not read what it shows (DynamoDB unreachable, throttled, a record that does not parse): the whole
 * page is replaced by 「データベースに接続できません」 with status 503 — nothing of it is drawn half.
 */
export class AdminDataError extends TransientError {
  override readonly name = "AdminDataError";
}

/** The reads, each failure become an AdminDataError carrying its cause (the log has the cause, the page the text). */
export function guardReads(reads: AdminReads): AdminReads {
  const guard =
    <A extends unknown[], R>(what: string, read: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await read(...args);
      } catch (cause) {
        throw new AdminDataError(`web admin could not read ${what}`, { cause, details: { read: what } });
      }
    };
  return {
    tasksInPeriod: guard("tasks", (q) => reads.tasksInPeriod(q)),
    history: guard("task history", (id) => reads.history(id)),
    writes: guard("write ledger", (id) => reads.writes(id)),
    audit: guard("audit log", (team, window) => reads.audit(team, window)),
    settings: guard("team settings", (team) => reads.settings(team)),
  };
}
