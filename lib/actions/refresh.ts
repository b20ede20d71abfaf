import type { CardState, CardSubject } from "../domain/card-refresher";
import type { ActionDeps } from "./types";

/**
 * Card refresh after an action is best effort: the state change already happened (and the back end refreshes
 * again on its next step), so a Slack failure here is logged, not turned into a failed click.
 */
export async function refreshQuietly(deps: Pick<ActionDeps, "cards" | "log">, taskId: string, subject: CardSubject, known?: CardState): Promise<void> {
  try {
    await deps.cards.refresh(taskId, subject, known);
  } catch (err) {
    deps.log.warn("card refresh after an action failed", {
      layer: "slack",
      taskId,
      subject,
      error_type: err instanceof Error ? err.name : "unknown",
      error_message: err instanceof Error ? err.message : String(err),
    });
  }
}
