import type { Execution, ProcessVersion, PromptVersion, ReadTable, SlackThread, Task } from "./records";

/** What the cards are rendered from: the task, its versions and executions (never its audit or write items). */
export interface CardState {
  task: Task;
  prompts: PromptVersion[];
  processes: ProcessVersion[];
  executions: Execution[];
}

/**
 * The one way the back end shows state to users: "render this card from what the table says now, then post it
 * (first time) or chat.update it in place". Cards are a function of DB state, so a retried step that refreshes
 * twice shows the same card. A port: implemented by `SlackCardRefresher` (lib/ingress/slack-card-refresher.ts), so
 * the actions and the pipeline steps that refresh cards never import Slack.
 */
export type CardSubject =
  | { kind: "task" }
  | { kind: "prompt" }
  | { kind: "process" }
  | { kind: "execution"; executionNo: number };

export interface CardRefresher {
  /** `known`: the caller already holds the current state (it just read or wrote it), so it is not read again. */
  refresh(taskId: string, subject: CardSubject, known?: CardState): Promise<void>;
  /**
   * A plain message in the request's thread, for the one failure that has no card to update: the task item
   * itself could not be created. Without it the user would hear nothing.
   */
  notifyThread(thread: SlackThread, text: string): Promise<void>;
  /**
   * A file in the request's thread (a long read result as CSV): its Slack file id. Throws the classified Slack
   * error; the caller decides whether a missing file matters.
   */
  attachFile(thread: SlackThread, file: ThreadFile): Promise<string>;
  /** Whether the thread's channel is public (Slack's own channel facts: lib/ingress/channel-privacy.ts). */
  audienceOf(thread: SlackThread): Promise<"public" | "private">;
  /**
   * A message (and files) to one member only, in their DM with the app: results that may not be posted where the
   * request was made. The DM's channel id and the files' ids; throws the classified Slack error.
   */
  sendPrivately(thread: SlackThread, userId: string, results: PrivateResults, files: readonly ThreadFile[]): Promise<{ channelId: string; fileIds: string[] }>;
}

/** A run's results for one member's eyes: what the thread's card does not show (lib/ingress/private-results.ts renders it). */
export interface PrivateResults {
  taskTitle: string;
  executionNo: number;
  summary?: string;
  tables: { order: number; stepId: string; table: ReadTable; inCsv: boolean }[];
}

export interface ThreadFile {
  filename: string;
  title: string;
  content: string;
  comment: string;
}
