/**
 * The one way the back end shows state to users: "render this card from what the table says now, then post it
 * (first time) or chat.update it in place". Cards are a function of DB state, so a retried step that refreshes
 * twice shows the same card. Implemented by `SlackCardRefresher` (lib/slack/slack-card-refresher.ts).
 */
export type CardSubject =
  | { kind: "task" }
  | { kind: "prompt" }
  | { kind: "process" }
  | { kind: "execution"; executionNo: number };

export interface CardRefresher {
  refresh(taskId: string, subject: CardSubject): Promise<void>;
}
