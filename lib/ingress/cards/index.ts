import type { Limits } from "../../core/config/limits";
import type { CardState as TaskHistory } from "../../core/domain/card-refresher";
import type { CardSubject } from "../../core/domain/card-refresher";
import type { Card } from "./blocks";
import { renderExecutionCard } from "./execution-card";
import { renderTaskCard } from "./task-card";
import { renderVersionCard } from "./version-card";
import type { CardLinks } from "./admin-link";
export type { CardLinks } from "./admin-link";

export * from "./blocks";
export { renderTaskCard } from "./task-card";
export { renderVersionCard, APPROVAL_EXPIRED_TEXT } from "./version-card";
export { renderExecutionCard, CANCELLING_TEXT, CANCELLED_TEXT } from "./execution-card";

/** Render the card of one subject from the task's history: a pure function of DB state. */
export function renderCard(history: TaskHistory, subject: CardSubject, limits: Pick<Limits, "maxReruns">, links: CardLinks = {}): Card {
  switch (subject.kind) {
    case "task":
      return renderTaskCard(history, links);
    case "prompt":
    case "process":
      return renderVersionCard(history, subject.kind, links);
    case "execution":
      return renderExecutionCard(history, subject.executionNo, limits, links);
  }
}
