import type { Logger } from "@aws-lambda-powertools/logger";
import type { WebClient } from "@slack/web-api";
import type { Limits } from "../core/config/limits";
import type { SlackThread } from "../core/domain/records";
import { AppError, TruncatedResponseError } from "../core/errors/taxonomy";
import type { TaskStore } from "../store/task-store";
import type { BotTokenResolver } from "../slack-api/bot-token";
import type { CardRefresher, CardState, CardSubject, PrivateResults, ThreadFile } from "../core/domain/card-refresher";
import { renderPrivateResults } from "./private-results";
import { type CardLinks, renderCard, type Card } from "./cards";
import { classifySlackError, slackErrorCode } from "../slack-api/web-client";
import type { ChannelPrivacy } from "./channel-privacy";

export interface SlackCardRefresherDeps {
  store: Pick<TaskStore, "loadHistory" | "setCardTs" | "setExecutionCardTs">;
  tokens: BotTokenResolver;
  /** Builds a Web API client for a bot token (createWebClient in production, the recording server in tests). */
  clientFor: (token: string) => WebClient;
  limits: Pick<Limits, "maxReruns">;
  log: Logger;
  /** Slack's channel facts, cached per warm instance. */
  privacy: ChannelPrivacy;
  /** The web admin, linked under the freee connection failure. */
  links?: CardLinks;
}

/**
 * Cards are a function of DB state: load the history, render the subject's card, then chat.update the message
 * whose ts the table holds, or post it in the request's thread the first time and store its ts.
 * Slack errors: AuthError (token invalid / revoked) and transient ones (rate limit, 5xx, network) are thrown,
 * so the caller's retry policy sees them; any other Slack API error is logged (best effort).
 */
export class SlackCardRefresher implements CardRefresher {
  constructor(private readonly deps: SlackCardRefresherDeps) {}

  async notifyThread(thread: SlackThread, text: string): Promise<void> {
    const { botToken } = await this.deps.tokens.resolve(thread.teamId, thread.enterpriseId);
    try {
      await this.deps.clientFor(botToken).chat.postMessage({ channel: thread.channelId, thread_ts: thread.messageTs, text });
    } catch (err) {
      const classified = classifySlackError(err, "thread notice");
      if (classified instanceof AppError) throw classified;
      this.deps.log.error("Slack thread notice failed (best effort)", { layer: "slack", error_type: classified.name, error_message: classified.message, slackError: slackErrorCode(err) });
    }
  }

  /** files.uploadV2 (getUploadURLExternal → upload → completeUploadExternal), shared as a reply in the thread. */
  async attachFile(thread: SlackThread, file: ThreadFile): Promise<string> {
    const { botToken } = await this.deps.tokens.resolve(thread.teamId, thread.enterpriseId);
    try {
      const done = await this.deps.clientFor(botToken).filesUploadV2({
        channel_id: thread.channelId,
        thread_ts: thread.messageTs,
        filename: file.filename,
        title: file.title,
        content: file.content,
        initial_comment: file.comment,
      });
      const id = (done.files as { files?: { id?: string }[] }[] | undefined)?.[0]?.files?.[0]?.id;
      // ok: true without the file (docs/architecture.md, error table): the upload cannot be said to be in the thread.
      if (id === undefined) throw new TruncatedResponseError("files.completeUploadExternal answered ok without a file id", { details: { filename: file.filename } });
      return id;
    } catch (err) {
      throw classifySlackError(err, "thread file");
    }
  }

  async audienceOf(thread: SlackThread): Promise<"public" | "private"> {
    const { botToken } = await this.deps.tokens.resolve(thread.teamId, thread.enterpriseId);
    return this.deps.privacy.audienceOf(this.deps.clientFor(botToken), thread);
  }

  /** conversations.open (the member's DM with the app), then the message and each file there. */
  async sendPrivately(thread: SlackThread, userId: string, results: PrivateResults, files: readonly ThreadFile[]): Promise<{ channelId: string; fileIds: string[] }> {
    const message = renderPrivateResults(results);
    const { botToken } = await this.deps.tokens.resolve(thread.teamId, thread.enterpriseId);
    const client = this.deps.clientFor(botToken);
    try {
      const opened = await client.conversations.open({ users: userId });
      const channelId = opened.channel?.id;
      if (channelId === undefined) throw new TruncatedResponseError("conversations.open answered ok without a channel", { details: { userId } });
      await client.chat.postMessage({ channel: channelId, text: message.text, blocks: message.blocks });
      const fileIds: string[] = [];
      for (const file of files) {
        const done = await client.filesUploadV2({ channel_id: channelId, filename: file.filename, title: file.title, content: file.content, initial_comment: file.comment });
        const id = (done.files as { files?: { id?: string }[] }[] | undefined)?.[0]?.files?.[0]?.id;
        if (id === undefined) throw new TruncatedResponseError("files.completeUploadExternal answered ok without a file id", { details: { filename: file.filename } });
        fileIds.push(id);
      }
      return { channelId, fileIds };
    } catch (err) {
      throw classifySlackError(err, "private delivery");
    }
  }

  async refresh(taskId: string, subject: CardSubject, known?: CardState): Promise<void> {
    const history = known ?? (await this.deps.store.loadHistory(taskId, { cardsOnly: true }));
    const { task } = history;
    const card = renderCard(history, subject, this.deps.limits, this.deps.links);
    const { botToken } = await this.deps.tokens.resolve(task.thread.teamId, task.thread.enterpriseId);
    const client = this.deps.clientFor(botToken);
    const existingTs =
      subject.kind === "execution"
        ? history.executions.find((e) => e.executionNo === subject.executionNo)?.cardTs
        : task.cards[subject.kind];
    try {
      if (existingTs !== undefined) {
        try {
          await client.chat.update({ channel: task.thread.channelId, ts: existingTs, text: card.text, blocks: card.blocks });
          return;
        } catch (err) {
          // The card message was deleted by a user: post a fresh one below instead of failing the step.
          if (slackErrorCode(err) !== "message_not_found") throw err;
        }
      }
      // Two refreshes of a card nobody posted yet (the rerun click and StartSession) both post; one claims the
      // slot and the other deletes its message. Until it does, that duplicate must not offer a live button, so a
      // first post carries no buttons; the holder of the slot then shows them (one chat.update, first post only).
      const live = hasButtons(card);
      const first = live ? withoutButtons(card) : card;
      const posted = await client.chat.postMessage({
        channel: task.thread.channelId,
        thread_ts: task.thread.messageTs,
        text: first.text,
        blocks: first.blocks,
      });
      if (typeof posted.ts !== "string") {
        this.deps.log.warn("chat.postMessage returned no ts; the card cannot be updated in place", { taskId, subject });
        return;
      }
      const held =
        subject.kind === "execution"
          ? await this.deps.store.setExecutionCardTs(taskId, subject.executionNo, posted.ts, existingTs)
          : await this.deps.store.setCardTs(taskId, subject.kind, posted.ts, existingTs);
      // The caller's state now holds the slot too: its next refresh of this card updates it in place.
      if (known !== undefined) claimIn(known, subject, held);
      if (held !== posted.ts) {
        // Another refresh of the same card posted first and holds the slot: keep one card in the thread.
        await client.chat.delete({ channel: task.thread.channelId, ts: posted.ts });
        await client.chat.update({ channel: task.thread.channelId, ts: held, text: card.text, blocks: card.blocks });
      } else if (live) {
        await client.chat.update({ channel: task.thread.channelId, ts: held, text: card.text, blocks: card.blocks });
      }
    } catch (err) {
      const classified = classifySlackError(err, `card ${subject.kind}`);
      if (classified instanceof AppError) throw classified;
      this.deps.log.error("Slack card update failed (best effort)", {
        layer: "slack",
        error_type: classified.name,
        error_message: classified.message,
        slackError: slackErrorCode(err),
        taskId,
        subject,
      });
    }
  }
}

function claimIn(state: CardState, subject: CardSubject, ts: string): void {
  if (subject.kind !== "execution") {
    state.task.cards = { ...state.task.cards, [subject.kind]: ts };
    return;
  }
  const execution = state.executions.find((e) => e.executionNo === subject.executionNo);
  if (execution !== undefined) execution.cardTs = ts;
}

function hasButtons(card: Card): boolean {
  return card.blocks.some((b) => (b as { type?: string }).type === "actions");
}

/** The card as a duplicate may show it for a moment: everything but its buttons. */
function withoutButtons(card: Card): Card {
  return { text: card.text, blocks: card.blocks.filter((b) => (b as { type?: string }).type !== "actions") };
}
