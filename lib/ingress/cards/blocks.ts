import { codeCell, cutToSlackLength, escapeMrkdwn, inlineMrkdwn, quotedMrkdwn, slackLength } from "../../core/messages/mrkdwn";
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
  /** Opens the raw input of some steps (a modal; pushed over the full-plan modal when clicked there). */
  showInput: "show_step_input",
  /** Opens the whole plan in a modal whose submit approves (a plan that does not fit a card). */
  reviewPlan: "review_full_plan",
} as const;
export type ActionId = (typeof ActionIds)[keyof typeof ActionIds];

/** What a version button says: which Prompt / Process version of which task. */
export interface VersionRef {
  taskId: string;
  kind: "prompt" | "process";
  version: number;
}
/** What a 「入力 JSON」 button says: which steps of which Process version. */
export interface StepInputRef {
  taskId: string;
  version: number;
  stepIds: string[];
}
/** What an execution button says. */
export interface ExecutionRef {
  taskId: string;
  executionNo: number;
}

const MAX_SECTION = 2900; // Block Kit section text limit is 3,000 characters (counted as slackLength: docs/slack.md).

/** At most `max` units (slackLength), a surrogate pair never split, "…" marking the cut. */
export function truncate(text: string, max = MAX_SECTION): string {
  return slackLength(text) <= max ? text : `${cutToSlackLength(text, max - 1)}…`;
}

export function header(text: string): KnownBlock {
  return { type: "header", text: { type: "plain_text", text: truncate(text, 150), emoji: true } };
}

/**
 * Every mrkdwn text object of a card is `verbatim`: Slack links only the `<url|text>` and `<@U…>` forms the card
 * writes itself, never a bare URL, @name or #channel inside outside text (lib/core/messages/mrkdwn.ts).
 */
export function mrkdwn(text: string): { type: "mrkdwn"; text: string; verbatim: true } {
  return { type: "mrkdwn", text, verbatim: true };
}

export function section(markdown: string): KnownBlock {
  return { type: "section", text: mrkdwn(truncate(markdown)) };
}

/**
 * A section whose text the caller has already split to fit (lib/preview/plan.ts): never truncated,
 * because what it shows is what an approver approves. Optionally with one button on the right.
 */
export function wholeSection(markdown: string, button?: ButtonSpec): KnownBlock {
  return {
    type: "section",
    text: mrkdwn(markdown),
    ...(button === undefined ? {} : { accessory: buttonElement(button) }),
  };
}

export function context(markdown: string): KnownBlock {
  return { type: "context", elements: [mrkdwn(truncate(markdown))] };
}

export interface ButtonSpec {
  actionId: ActionId;
  text: string;
  value: VersionRef | ExecutionRef | StepInputRef;
  style?: "primary" | "danger";
  /** Slack's confirm dialog before the click is sent (title 100, text 300, buttons 30 characters). */
  confirm?: ConfirmSpec;
}

export interface ConfirmSpec {
  title: string;
  text: string;
  confirm: string;
  deny: string;
}

export function actions(blockId: string, buttons: ButtonSpec[]): KnownBlock {
  return {
    type: "actions",
    block_id: blockId,
    elements: buttons.map(buttonElement),
  };
}

function buttonElement(b: ButtonSpec) {
  return {
    type: "button" as const,
    action_id: b.actionId,
    text: { type: "plain_text" as const, text: b.text, emoji: true },
    value: JSON.stringify(b.value),
    ...(b.style === undefined ? {} : { style: b.style }),
    ...(b.confirm === undefined
      ? {}
      : {
          confirm: {
            title: { type: "plain_text" as const, text: truncate(b.confirm.title, 100) },
            text: { type: "plain_text" as const, text: truncate(b.confirm.text, 300), emoji: true },
            confirm: { type: "plain_text" as const, text: truncate(b.confirm.confirm, 30) },
            deny: { type: "plain_text" as const, text: truncate(b.confirm.deny, 30) },
            style: "danger" as const,
          },
        }),
  };
}

export { codeCell, escapeMrkdwn, inlineMrkdwn, quotedMrkdwn };

export function quote(text: string): string {
  return quotedMrkdwn(text);
}

export function user(userId: string): string {
  return `<@${userId}>`;
}
