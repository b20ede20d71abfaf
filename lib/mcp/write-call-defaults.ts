/**
 * The write path's timings (lib/mcp/write-call.ts), on their own so that what only reads them (the run's completion
 * check, lib/steps/run-completion.ts) does not bundle the write path with its reconciler, validator and schemas.
 */
export const WRITE_CALL_DEFAULTS = {
  /** Wait before reading back a write whose reply was lost: freee may still be processing it. */
  reconcileDelayMs: 2000,
  /** One read back may take this long in all (its reads retry as reads do); past it the outcome stays unknown. */
  reconcileBudgetMs: 30_000,
  /**
   * An `in_flight` write older than this lost its Lambda (Lambda's own ceiling is 15 minutes, and the MCP
   * Lambda's timeout is below it: infra/lambda-budgets.ts), so its outcome is unknown.
   */
  inFlightLeaseMs: 900_000,
  /**
   * The ledger's record of a write freee took is retried (a throttled table) this many times in all, with
   * doubling waits from `ledgerBackoffMs`, while the invocation has the time: a write that landed must not be
   * left `in_flight` by one throttle.
   */
  ledgerAttempts: 6,
  ledgerBackoffMs: 100,
};
