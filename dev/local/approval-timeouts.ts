import type { LocalStepFunctions } from "./local-step-functions";

/**
 * What AWS does with a waitForTaskToken state's TimeoutSeconds, which the local runner leaves to its caller:
 * a token still waiting after `timeoutMs` fails its state with States.Timeout (the pipeline's Catch then
 * expires the version and closes the task, visibly). Checked every `checkMs`; the timer does not keep the
 * process alive.
 */
export function startApprovalTimeouts(local: LocalStepFunctions, timeoutMs: number, checkMs = Math.min(1000, Math.max(50, Math.floor(timeoutMs / 4)))): () => void {
  const firstSeen = new Map<string, number>();
  const timer = setInterval(() => {
    const now = Date.now();
    const waiting = new Set<string>();
    for (const pending of local.pendingTokens()) {
      waiting.add(pending.token);
      const since = firstSeen.get(pending.token) ?? now;
      firstSeen.set(pending.token, since);
      if (now - since >= timeoutMs) {
        firstSeen.delete(pending.token);
        local.timeOutTask(pending.token);
      }
    }
    for (const token of firstSeen.keys()) if (!waiting.has(token)) firstSeen.delete(token);
  }, checkMs);
  timer.unref();
  return () => clearInterval(timer);
}
