/**
 * A FreeeThrottledError stamped on a run (Execution.fault) carries when freee lifts the throttle in its `reason`
 * (`until <ISO time>`): the MCP server writes it, the run's card reads it back to say when to run again. No zod
 * here: the Slack Lambda's cards import it.
 */
export function throttleFaultReason(resetAt: string): string {
  return `until ${resetAt}`;
}

/** The time a FreeeThrottledError fault's reason names, if it names one. */
export function throttleFaultUntil(reason: string | undefined): string | undefined {
  return /^until (\S+)$/.exec(reason ?? "")?.[1];
}
