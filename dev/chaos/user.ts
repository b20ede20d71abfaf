import { taskIdFor } from "../../lib/core/domain/records";
import { blockActionsPayload, messageEnvelope } from "../local/slack-payloads";
import { deliverEvent, deliverInteraction, type SlackDelivery } from "../local/slack-signature";
import type { FakeSlack } from "../fakes/slack/fake-slack";
import type { ChannelMessage } from "../fakes/slack/workspace";
import type { LocalStack } from "../local/local-stack";
import type { PhaseTracker } from "./phases";

/** A button as a card shows it. */
export interface ShownButton {
  message: ChannelMessage;
  actionId: string;
  value: string;
  parsed: Record<string, unknown>;
}

/**
 * The person in the sandbox channel, and Slack's delivery around them: a message whose delivery failed or took
 * longer than 3 s is redelivered (Slack retries an event up to 3 times); a click that failed is clicked again
 * once the card still offers it (a person who sees nothing happen tries again), at most `clickAttempts` times.
 */
export class ChaosUser {
  constructor(
    private readonly stack: LocalStack,
    private readonly slack: FakeSlack,
    private readonly phases: PhaseTracker,
    private readonly clickAttempts = 3,
  ) {}

  private get eventsUrl(): string {
    return `${this.stack.url}/slack/events`;
  }

  async post(text: string): Promise<{ ts: string; taskId: string; deliveries: SlackDelivery[] }> {
    const who = this.stack.sandbox;
    const message = this.slack.workspace.addUserMessage({ channel: who.channelId, user: who.userId, text });
    const envelope = messageEnvelope(who, { ts: message.ts, text });
    const deliveries: SlackDelivery[] = [];
    await this.phases.at("create", async () => {
      for (let attempt = 0; attempt <= 3; attempt++) {
        const headers: Record<string, string> = attempt === 0 ? {} : { "x-slack-retry-num": String(attempt), "x-slack-retry-reason": "http_error" };
        const delivery = await withDeadline(deliverEvent(this.eventsUrl, { ...envelope, event_id: `${envelope.event_id}${attempt}` }, who.signingSecret, headers), 3000);
        deliveries.push(delivery);
        if (delivery.status >= 200 && delivery.status < 300) break;
      }
    });
    return { ts: message.ts, taskId: taskIdFor({ teamId: who.teamId, channelId: who.channelId, messageTs: message.ts }), deliveries };
  }

  /** Every button shown in the thread now. */
  buttons(threadTs: string): ShownButton[] {
    const out: ShownButton[] = [];
    for (const message of this.slack.workspace.thread(threadTs)) {
      if (message.ephemeral) continue;
      for (const block of (message.blocks ?? []) as { type: string; elements?: { action_id?: string; value?: string }[] }[]) {
        if (block.type !== "actions") continue;
        for (const el of block.elements ?? []) {
          if (el.action_id === undefined || el.value === undefined) continue;
          out.push({ message, actionId: el.action_id, value: el.value, parsed: JSON.parse(el.value) as Record<string, unknown> });
        }
      }
    }
    return out;
  }

  findButton(threadTs: string, actionId: string, value: Record<string, unknown>): ShownButton | undefined {
    return this.buttons(threadTs).find((b) => b.actionId === actionId && Object.entries(value).every(([k, v]) => b.parsed[k] === v));
  }

  /**
   * Click a button (as phase `phase`); click again while the click failed and the card still offers it.
   * Returns the HTTP answers of each click.
   */
  async click(phase: string, button: ShownButton, threadTs: string): Promise<SlackDelivery[]> {
    const answers: SlackDelivery[] = [];
    let current: ShownButton | undefined = button;
    for (let attempt = 0; attempt < this.clickAttempts && current !== undefined; attempt++) {
      const answer = await this.phases.at(phase, () => this.deliverClick(current!));
      answers.push(answer);
      if (answer.status === 200) break;
      await sleep(300);
      current = this.findButton(threadTs, button.actionId, button.parsed);
    }
    return answers;
  }

  private deliverClick(button: ShownButton): Promise<SlackDelivery> {
    const who = this.stack.sandbox;
    const payload = blockActionsPayload(who, {
      triggerId: this.slack.issueTriggerId(),
      actionId: button.actionId,
      value: button.value,
      messageTs: button.message.ts,
      ...(button.message.threadTs === undefined ? {} : { threadTs: button.message.threadTs }),
    });
    return withDeadline(deliverInteraction(this.eventsUrl, payload, who.signingSecret), 3000);
  }

  ephemerals(): ChannelMessage[] {
    return this.slack.workspace.messages.filter((m) => m.ephemeral === true && m.user === this.stack.sandbox.userId);
  }
}

/** Slack gives up on a request after 3 s: the sender sees a failure (the work may go on behind it). */
async function withDeadline(delivery: Promise<SlackDelivery>, ms: number): Promise<SlackDelivery> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<SlackDelivery>((resolve) => {
    timer = setTimeout(() => resolve({ status: 0, text: `no answer within ${ms} ms` }), ms);
  });
  try {
    return await Promise.race([delivery.catch((err: unknown) => ({ status: 0, text: err instanceof Error ? err.message : String(err) })), late]);
  } finally {
    clearTimeout(timer);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
