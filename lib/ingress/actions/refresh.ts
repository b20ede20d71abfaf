import type { CardState, CardSubject } from "../../core/domain/card-refresher";
import { defaultSleep } from "../../core/aws/transient-retry";
import { TransientError } from "../../core/errors/taxonomy";
import type { ActionDeps } from "./types";

/** One more try for a card update Slack refused for a moment (rate limit, 5xx): short, the click waits for it. */
const RETRY_PAUSE_MS = 250;

/**
 * Card refresh after an action is best effort: the state change already happened (and the back end refreshes
 * again on its next step), so a Slack failure here is retried once, then logged, not turned into a failed click.
 */
export async function refreshQuietly(deps: Pick<ActionDeps, "cards" | "log">, taskId: string, subject: CardSubject, known?: CardState): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      // The retry reads the table again: the state held from the click may be older than a step's refresh
      // that landed meanwhile (a cancel's 中止中... must not overwrite the run's 中止).
      await deps.cards.refresh(taskId, subject, attempt === 1 ? known : undefined);
      return;
    } catch (err) {
      if (err instanceof TransientError && attempt === 1) {
        await defaultSleep(RETRY_PAUSE_MS);
        continue;
      }
      deps.log.warn("card refresh after an action failed", {
        layer: "slack",
        taskId,
        subject,
        attempt,
        error_type: err instanceof Error ? err.name : "unknown",
        error_message: err instanceof Error ? err.message : String(err),
      });
      return;
    }
  }
}

/**
 * A click on a card that no longer shows the truth (Slack was down when the state last changed, or another card
 * of the same run was clicked): draw the clicked card again from the table instead of only refusing — for a run's
 * buttons also the latest run's card and the Task card. Reads the history once.
 */
export async function rerenderStale(deps: Pick<ActionDeps, "cards" | "log" | "store">, taskId: string, subjects: CardSubject[], withRun = true): Promise<void> {
  const state = await deps.store.loadHistory(taskId, { cardsOnly: true });
  const all: CardSubject[] = [...subjects];
  if (withRun) all.push({ kind: "task" });
  if (withRun && state.task.executionCount > 0) all.push({ kind: "execution", executionNo: state.task.executionCount });
  const seen = new Set<string>();
  for (const subject of all) {
    const key = JSON.stringify(subject);
    if (seen.has(key)) continue;
    seen.add(key);
    await refreshQuietly(deps, taskId, subject, state);
  }
}
