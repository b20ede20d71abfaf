import type { KnownBlock } from "@slack/web-api";

/** Small Block Kit builders shared by the cards. Buttons carry ids only (never task tokens). */

export interface Card {
  /** Fallback text (notifications, screen readers). */
  text: string;
  blocks: KnownBlock[];
}

export const ActionIds = {
  approve: "approve_version",
  reject: "reject_version",
  cancel: "cancel_execution",
  rerun: "rerun_execution",
} as const;
export type ActionId = (typeof ActionIds)[keyof typeof ActionIds];

/** What a version button says: which Prompt / Process version of which task. */
export interface VersionRef {
  taskId: string;
  kind: "prompt" | "process";
  version: number;
}
/** What an execution button says. */
export interface ExecutionRef {
  taskId: string;
  executionNo: number;
}

const MAX_SECTION = 2900; // Block Kit section text limit is 3,000 characters.

export function truncate(text: string, max = MAX_SECTION): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function header(text: string): KnownBlock {
  return { type: "header", text: { type: "plain_text", text: truncate(text, 150), emoji: true } };
}

export function section(markdown: string): KnownBlock {
  return { type: "section", text: { type: "mrkdwn", text: truncate(markdown) } };
}

export function context(markdown: string): KnownBlock {
  return { type: "context", elements: [{ type: "mrkdwn", text: truncate(markdown) }] };
}

export interface ButtonSpec {
  actionId: ActionId;
  text: string;
  value: VersionRef | ExecutionRef;
  style?: "primary" | "danger";
}

export function actions(blockId: string, buttons: ButtonSpec[]): KnownBlock {
  return {
    type: "actions",
    block_id: blockId,
    elements: buttons.map((b) => ({
      type: "button" as const,
      action_id: b.actionId,
      text: { type: "plain_text" as const, text: b.text, emoji: true },
      value: JSON.stringify(b.value),
      ...(b.style === undefined ? {} : { style: b.style }),
    })),
  };
}

/** Slack mrkdwn escaping of user / model text (&, <, >). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function quote(text: string): string {
  return escapeMrkdwn(text)
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
}

export function user(userId: string): string {
  return `<@${userId}>`;
}
