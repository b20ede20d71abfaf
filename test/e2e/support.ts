import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { taskIdFor } from "../../lib/core/domain/records";
import { l1Ok, l2Ok, l3Ok } from "../steps/fixtures";
import { testDynamoEndpoint, uniqueTableName } from "../support/dynamo";
import { startLocalStack, type LocalStack } from "../../dev/local/local-stack";
import { blockActionsPayload, messageEnvelope, viewSubmissionPayload } from "../../dev/local/slack-payloads";
import { deliverEvent, deliverInteraction, type SlackDelivery } from "../../dev/local/slack-signature";
import type { ChannelMessage } from "../../dev/fakes/slack/workspace";
import { startFakeAnthropic, type FakeAnthropic } from "../../dev/fakes/anthropic";
import { startFakeManagedAgents, type FakeAnthropic as FakeManagedAgents } from "../../dev/fakes/anthropic";
import { holdTestsToScripts } from "../support/open-harnesses";
import { until } from "../support/until";

/**
 * The end-to-end harness: the `npm run dev` stack (startLocalStack) on an ephemeral port, reached only over HTTP
 * with signed Slack deliveries to /slack/events. The outside world is scripted: Anthropic Messages (L1–L3) and
 * Managed Agents (L4) are the test fakes behind ANTHROPIC_BASE_URL / MANAGED_AGENTS_BASE_URL; Slack's Web API
 * is the stack's Slack fake, which is also what the user "saw". Waits are shrunk (LOCAL_WAIT_MS, LOCAL_RETRY_MS);
 * the limits stay the product defaults (5 regenerations, 3 reruns, 360 s with a 3 s poll interval).
 */
export const E2E_KEY = "sk-ant-e2e";

export interface E2E {
  stack: LocalStack;
  anthropic: FakeAnthropic;
  agents: FakeManagedAgents;
  close(): Promise<void>;
}

export async function startE2E(env: Record<string, string> = {}): Promise<E2E> {
  const [anthropic, agents] = await Promise.all([startFakeAnthropic({ apiKey: E2E_KEY }), startFakeManagedAgents({ apiKey: E2E_KEY })]);
  const stack = await startLocalStack({
    PATH: process.env.PATH,
    LOG_LEVEL: "SILENT",
    PORT: "0",
    DATA_DIR: ":memory:",
    // The run's DynamoDB Local, a table of this stack's own.
    DYNAMODB_ENDPOINT: testDynamoEndpoint(),
    TABLE_NAME: uniqueTableName("e2e"),
    ANTHROPIC_API_KEY: E2E_KEY,
    ANTHROPIC_BASE_URL: anthropic.baseURL,
    MANAGED_AGENTS_BASE_URL: agents.url,
    LOCAL_WAIT_MS: "20",
    // Time runs 150× faster here (a 3 s poll takes 20 ms), so Slack's chat.update window shrinks alike: 50 per 400 ms.
    SANDBOX_SLACK_RATE_WINDOW_MS: "400",
    LOCAL_RETRY_MS: "0",
    L1_TIMEOUT_MS: "2000",
    L2_TIMEOUT_MS: "2000",
    L3_TIMEOUT_MS: "2000",
    // One user acts in these suites: they approve their own plans (the approval policy's tests pass "default").
    LOCAL_APPROVAL_POLICY: "one_person",
    ...env,
  });
  // test/setup/scripted-replies.ts holds each test to what it scripted.
  const releaseScripts = holdTestsToScripts(anthropic, agents);
  return {
    stack,
    anthropic,
    agents,
    async close() {
      releaseScripts();
      await stack.close();
      await Promise.all([anthropic.close(), agents.close()]);
    },
  };
}

/** Wait for what the probe sees; the test's limit is the only clock (test/support/until.ts). */
export const waitFor = until;

/** One user's view of the sandbox channel, acting only through signed HTTP deliveries. */
/** The request most scenarios make: a pay change the scripted layers plan as two steps. */
export const PAY_REQUEST = "来月から山田さんの基本給を30万円に変更して";

/**
 * The file's e2e stack as vitest hooks: started before its tests (logs quiet), handed to `use` with the sandbox
 * user, closed after them; after each test every Messages reply it scripted must have been taken, so a wrong
 * script fails its own test and never feeds the next.
 */
export function useE2E(env: Record<string, string>, use: (started: { e2e: E2E; user: SlackUser }) => void): void {
  let e2e: E2E | undefined;
  // Starting the local stack (DynamoDB tables, the state machines, the fakes) is the slowest hook of the suite.
  beforeAll(async () => {
    process.env.LOG_LEVEL = "SILENT";
    e2e = await startE2E(env);
    use({ e2e, user: new SlackUser(e2e) });
  }, 180_000);
  afterAll(async () => e2e?.close());
  afterEach(() => {
    if (e2e !== undefined) expect(e2e.anthropic.pending()).toBe(0);
  });
}

/** The happy path up to the run: L1–L3 answer as scripted, the user posts the request and approves both cards. */
export async function postAndApprove(e2e: E2E, user: SlackUser, text = PAY_REQUEST): Promise<{ ts: string; taskId: string }> {
  e2e.anthropic.enqueue(l1Ok(), l2Ok(), l3Ok());
  const { ts, taskId } = await user.post(text);
  await user.approve(ts, taskId, "prompt", 1);
  await user.approve(ts, taskId, "process", 1);
  return { ts, taskId };
}

export class SlackUser {
  constructor(
    private readonly e2e: E2E,
    readonly userId = e2e.stack.sandbox.userId,
  ) {}

  private get who() {
    return { ...this.e2e.stack.sandbox, userId: this.userId };
  }
  private get eventsUrl() {
    return `${this.e2e.stack.url}/slack/events`;
  }
  private get slack() {
    const slack = this.e2e.stack.slack;
    if (slack === undefined) throw new Error("e2e: the stack has no Slack fake");
    return slack;
  }
  private get recorder() {
    return this.slack.workspace;
  }

  /** Type a message in the channel: returns its thread ts and the task id the pipeline will use. */
  async post(text: string): Promise<{ ts: string; taskId: string; delivery: SlackDelivery }> {
    const message = this.recorder.addUserMessage({ channel: this.who.channelId, user: this.userId, text });
    const delivery = await deliverEvent(this.eventsUrl, messageEnvelope(this.who, { ts: message.ts, text }), this.who.signingSecret);
    return { ts: message.ts, taskId: taskIdFor({ teamId: this.who.teamId, channelId: this.who.channelId, messageTs: message.ts }), delivery };
  }

  /** Slack redelivering the same message (new event_id, X-Slack-Retry-Num), as on a slow ack. */
  redeliver(ts: string, text: string, retryNum: number): Promise<SlackDelivery> {
    return deliverEvent(this.eventsUrl, messageEnvelope(this.who, { ts, text }), this.who.signingSecret, {
      "x-slack-retry-num": String(retryNum),
      "x-slack-retry-reason": "http_timeout",
    });
  }

  thread(ts: string): ChannelMessage[] {
    return this.recorder.thread(ts).filter((m) => !m.ephemeral || m.user === this.userId);
  }

  /** Ephemeral replies to this user anywhere in the channel (the app posts them without thread_ts). */
  ephemerals(): ChannelMessage[] {
    return this.recorder.messages.filter((m) => m.ephemeral === true && m.user === this.userId);
  }

  /** Wait until a card in the thread shows a button `actionId` whose value matches, then return both. */
  async button(threadTs: string, actionId: string, value: Record<string, unknown> = {}): Promise<{ message: ChannelMessage; value: string }> {
    return waitFor(`button ${actionId} ${JSON.stringify(value)} in ${threadTs}`, () => {
      for (const message of this.thread(threadTs)) {
        for (const block of (message.blocks ?? []) as { type: string; elements?: { action_id?: string; value?: string }[] }[]) {
          for (const el of block.type === "actions" ? (block.elements ?? []) : []) {
            if (el.action_id !== actionId || el.value === undefined) continue;
            const parsed = JSON.parse(el.value) as Record<string, unknown>;
            if (Object.entries(value).every(([k, v]) => parsed[k] === v)) return { message, value: el.value };
          }
        }
      }
      return undefined;
    });
  }

  async click(threadTs: string, actionId: string, value: Record<string, unknown> = {}): Promise<SlackDelivery> {
    const found = await this.button(threadTs, actionId, value);
    return this.clickFound(found, actionId);
  }

  clickFound(found: { message: ChannelMessage; value: string }, actionId: string): Promise<SlackDelivery> {
    return deliverInteraction(
      this.eventsUrl,
      blockActionsPayload(this.who, { triggerId: this.slack.issueTriggerId(), actionId, value: found.value, messageTs: found.message.ts, ...(found.message.threadTs === undefined ? {} : { threadTs: found.message.threadTs }) }),
      this.who.signingSecret,
    );
  }

  approve(threadTs: string, taskId: string, kind: "prompt" | "process", version: number): Promise<SlackDelivery> {
    return this.click(threadTs, "approve_version", { taskId, kind, version });
  }

  /** [却下] → the reason modal (views.open) → view_submission with the reason. Returns the submission's ack. */
  async reject(threadTs: string, taskId: string, kind: "prompt" | "process", version: number, reason: string): Promise<SlackDelivery> {
    const before = this.slack.callsTo("views.open").length;
    await this.click(threadTs, "reject_version", { taskId, kind, version });
    await waitFor("the reason modal", () => this.slack.callsTo("views.open").length > before && this.recorder.openView);
    const open = this.recorder.openView!;
    const ack = await deliverInteraction(
      this.eventsUrl,
      viewSubmissionPayload(this.who, {
        triggerId: this.slack.issueTriggerId(),
        id: open.id,
        callbackId: String(open.view.callback_id),
        privateMetadata: String(open.view.private_metadata),
        values: { reason: { reason_input: { type: "plain_text_input", value: reason } } },
      }),
      this.who.signingSecret,
    );
    this.recorder.closeView(open.id);
    return ack;
  }
}

/** The cards and messages of a thread as the user sees them now: their fallback texts, in thread order. */
export function texts(messages: ChannelMessage[]): string[] {
  return messages.map((m) => (m.ephemeral ? `(ephemeral) ${m.text}` : m.text));
}

/** True when `expected` appears in `list` in this order (other entries may sit between). */
export function inOrder(list: readonly string[], expected: readonly string[]): boolean {
  let at = 0;
  for (const item of list) if (item === expected[at]) at += 1;
  return at === expected.length;
}

/** Every text the app sent into this thread, in order (each post and each update): what the user watched. */
export function history(e2e: E2E, threadTs: string): string[] {
  const inThread = new Set(e2e.stack.slack!.workspace.thread(threadTs).map((m) => m.ts));
  const out: string[] = [];
  for (const call of e2e.stack.slack!.calls) {
    const isPost = call.method === "chat.postMessage" && call.body.thread_ts === threadTs;
    const isUpdate = call.method === "chat.update" && inThread.has(String(call.body.ts));
    if (!isPost && !isUpdate) continue;
    const text = String(call.body.text);
    if (out.at(-1) !== text) out.push(text);
  }
  return out;
}

/** Full mrkdwn of a message's blocks (section texts), to check the wording inside a card. */
export function blockText(message: ChannelMessage | undefined): string {
  const textOf = (t: unknown): string => (typeof t === "string" ? t : typeof t === "object" && t !== null ? String((t as { text?: unknown }).text ?? "") : "");
  return ((message?.blocks ?? []) as { text?: unknown; elements?: { text?: unknown }[] }[])
    .map((b) => [textOf(b.text), ...(b.elements ?? []).map((e) => textOf(e.text))].join(" "))
    .join("\n");
}

/** Wait until no state machine execution of this task is running any more (pipeline and every run). */
export async function settled(e2e: E2E, taskId: string): Promise<void> {
  await waitFor(
    `the executions of ${taskId} to end`,
    () => {
      const mine = [...e2e.stack.local.executions.values()].filter((x) => x.name === taskId || x.name.startsWith(`${taskId}-e`));
      return mine.length > 0 && mine.every((x) => x.status !== "RUNNING");
    },
  );
}

/** The task's whole history from the table (task, versions, executions, audit). */
export function historyOf(e2e: E2E, taskId: string) {
  return e2e.stack.store.loadHistory(taskId);
}

export function auditActions(h: Awaited<ReturnType<typeof historyOf>>): string[] {
  return h.audit.map((a) => a.action);
}
