import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { FakeSlack } from "../fakes/slack/fake-slack";
import { UnknownFaultError, type FaultMode, type SandboxFaults } from "../sandbox/fault-panel";
import { appHomeOpenedEnvelope, blockActionsPayload, homeBlockActionsPayload, messageEnvelope, viewBlockActionsPayload, viewSubmissionPayload, type SlackWho } from "./slack-payloads";
import { deliverEvent, deliverInteraction, type SlackDelivery } from "./slack-signature";

/**
 * The sandbox page (dev/sandbox/page.html) and its API. Every user gesture becomes a signed Slack delivery to
 * the stack's own /slack/events over HTTP — the path a real Slack request takes — and the page renders what
 * the app sent to the Slack fake (dev/fakes/slack), which also issues each interaction's trigger_id.
 *   GET  /sandbox                     the page
 *   GET  /sandbox/api/state           what the page renders (messages with their files, the modal, the Home tab, the armed fault)
 *   POST /sandbox/api/message         { text, file?: { name, mimetype, base64 } } → a message event (file_share with a file)
 *   POST /sandbox/api/action          { action_id, block_id, value, ts } → block_actions (a card's button)
 *                                     { action_id, block_id, value, viewId } → block_actions (a modal's button)
 *                                     { surface: "home", type, action_id, block_id, value | selected_users } → the Home tab's
 *   POST /sandbox/api/view_submission { viewId, values }               → view_submission (its ack comes back)
 *   POST /sandbox/api/view_closed     { viewId }                       → the modal is dismissed
 *   POST /sandbox/api/home_opened     {}                               → app_home_opened (the app publishes the Home tab)
 *   GET  /sandbox/api/faults          { catalogue, armed }             the fault panel (dev/sandbox/fault-panel.ts)
 *   POST /sandbox/api/faults/arm      { id, mode: once | every }       arms one fault
 *   POST /sandbox/api/faults/clear    {}
 * A delivery the app answers with an error status comes back as 502 { error, status, body }: the page shows it.
 */
export interface SandboxOptions {
  slack: FakeSlack;
  who: SlackWho;
  signingSecret: string;
  /** The ingress URL (…/slack/events) of this stack. */
  eventsUrl: string;
  labels: string[];
  /** Display names for the page (Slack shows names, not ids). */
  names: Record<string, string>;
  /** The sandbox's public channel (the page's own, `who.channelId`, is private). */
  publicChannelId: string;
  /** The fault panel (sandbox with the scripted model and freee only). */
  faults?: SandboxFaults;
}

const PAGE = fileURLToPath(new URL("../sandbox/page.html", import.meta.url));

export function createSandbox(options: SandboxOptions): (request: Request, path: string) => Promise<Response> {
  const { slack, signingSecret, eventsUrl, faults } = options;
  const recorder = slack.workspace;
  // The page acts as one member at a time (「操作するユーザー」): the sandbox's user, or another member it names.
  const members = Object.keys(options.names).filter((id) => recorder.users.has(id));
  const whoFor = (as: string | undefined): SlackWho => (as !== undefined && members.includes(as) ? { ...options.who, userId: as } : options.who);

  function state(as: string | undefined): unknown {
    const who = whoFor(as);
    const visible = recorder.messages.filter((m) => !m.ephemeral || m.user === who.userId);
    const replyCount = new Map<string, number>();
    for (const m of visible) if (m.threadTs !== undefined && m.threadTs !== m.ts) replyCount.set(m.threadTs, (replyCount.get(m.threadTs) ?? 0) + 1);
    const open = recorder.openView;
    return {
      labels: options.labels,
      names: options.names,
      actingAs: who.userId,
      members,
      messages: visible.map((m) => ({ ...m, replyCount: replyCount.get(m.ts) ?? 0 })),
      openView: open === undefined ? null : { id: open.id, ...open.view },
      home: recorder.homeViews.get(who.userId) ?? null,
      faults: faults === undefined ? null : { armed: faults.armed() ?? null },
    };
  }

  return async (request, path) => {
    if (request.method === "GET" && (path === "/sandbox" || path === "/sandbox/")) {
      return new Response(await readFile(PAGE, "utf8"), { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
    }
    if (request.method === "GET" && path === "/sandbox/api/state") return json(200, state(new URL(request.url).searchParams.get("as") ?? undefined));
    if (request.method === "GET" && (path === "/sandbox/page.js" || path === "/sandbox/render.js")) {
      return new Response(await readFile(fileURLToPath(new URL(`../sandbox${path.slice("/sandbox".length)}`, import.meta.url)), "utf8"), { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-store" } });
    }
    if (request.method === "GET" && path === "/sandbox/api/faults") {
      if (faults === undefined) return json(404, { error: "the fault panel needs the scripted model and freee (no ANTHROPIC_API_KEY, no FREEE_CLIENT_ID)" });
      return json(200, { catalogue: faults.catalogue.map(({ id, family, label, persistent, once }) => ({ id, family, label, persistent, once })), armed: faults.armed() ?? null });
    }
    if (request.method !== "POST") return json(404, { error: "not found" });
    const body = parseJsonObject(await request.text());
    if (body === undefined) return json(400, { error: "body must be a JSON object" });
    const str = (key: string) => (typeof body[key] === "string" ? (body[key] as string) : undefined);
    if (str("as") !== undefined && !members.includes(str("as")!)) return json(400, { error: `as must be one of the sandbox's members: ${members.join(", ")}` });
    const actingAs = whoFor(str("as"));
    // A message goes to the page's channel, or to the public one it names (the same ids the Slack fake knows).
    const channel = str("channel");
    if (channel !== undefined && channel !== options.who.channelId && channel !== options.publicChannelId) return json(400, { error: "channel must be the sandbox's channel or its public one" });
    let who: SlackWho = channel === undefined || channel === options.who.channelId ? actingAs : { ...actingAs, channelId: channel, channelType: "channel" };

    switch (path) {
      case "/sandbox/api/message": {
        const text = str("text")?.trim();
        if (text === undefined || text === "") return json(400, { error: "text is required" });
        const file = sharedFile(body.file);
        if (file === "invalid") return json(400, { error: "file must be { name, mimetype, base64 } (at most 10 MB)" });
        faults?.onRequest();
        const files = file === undefined ? undefined : [slack.files.share({ ...file, user: who.userId })];
        const message = recorder.addUserMessage({ channel: who.channelId, user: who.userId, text, ...(files === undefined ? {} : { files }) });
        const delivery = await deliverEvent(eventsUrl, messageEnvelope(who, { ts: message.ts, text, ...(files === undefined ? {} : { files }) }), signingSecret);
        return answered(delivery, { ts: message.ts });
      }
      case "/sandbox/api/home_opened":
        return answered(await deliverEvent(eventsUrl, appHomeOpenedEnvelope(who), signingSecret));
      case "/sandbox/api/faults/arm": {
        const id = str("id");
        const mode = str("mode") ?? "every";
        if (faults === undefined) return json(404, { error: "the fault panel needs the scripted model and freee" });
        if (id === undefined || (mode !== "once" && mode !== "every")) return json(400, { error: "id and mode (once | every) are required" });
        try {
          return json(200, { armed: faults.arm(id, mode as FaultMode) });
        } catch (err) {
          if (err instanceof UnknownFaultError) return json(400, { error: err.message });
          throw err;
        }
      }
      case "/sandbox/api/faults/clear":
        faults?.clear();
        return json(200, { armed: null });
      case "/sandbox/api/action": {
        if (str("surface") === "home") {
          const home = recorder.homeViews.get(who.userId);
          const actionId = str("action_id");
          const type = str("type") ?? "button";
          if (home === undefined || actionId === undefined || !["button", "plain_text_input", "multi_users_select"].includes(type)) return json(400, { error: "open the Home tab first; action_id and type are required" });
          const selected = Array.isArray(body.selected_users) ? body.selected_users.filter((u): u is string => typeof u === "string") : undefined;
          const click = { triggerId: slack.issueTriggerId(), actionId, type: type as "button", ...opt("blockId", str("block_id")), ...opt("value", str("value")), ...opt("text", str("text")), ...(selected === undefined ? {} : { selectedUsers: selected }) };
          return answered(await deliverInteraction(eventsUrl, homeBlockActionsPayload(who, click, { id: `VHOME${who.userId}`, hash: "sandbox" }), signingSecret));
        }
        const viewId = str("viewId");
        if (viewId !== undefined) {
          // A button inside the open modal (the full plan's 「入力 JSON」).
          const open = recorder.openView;
          const inModal = str("action_id");
          if (open === undefined || open.id !== viewId || inModal === undefined) return json(409, { error: "that modal is no longer open" });
          const click = {
            triggerId: slack.issueTriggerId(),
            actionId: inModal,
            ...(str("block_id") === undefined ? {} : { blockId: str("block_id") }),
            ...(str("value") === undefined ? {} : { value: str("value") }),
            ...(str("text") === undefined ? {} : { text: str("text") }),
          };
          const view = { id: open.id, callbackId: String(open.view.callback_id ?? ""), privateMetadata: String(open.view.private_metadata ?? "") };
          return answered(await deliverInteraction(eventsUrl, viewBlockActionsPayload(who, click, view), signingSecret));
        }
        const actionId = str("action_id");
        const ts = str("ts");
        const message = ts === undefined ? undefined : recorder.message(ts);
        if (actionId === undefined || message === undefined) return json(400, { error: "action_id and the ts of a shown message are required" });
        // The click comes from the channel the message is in.
        if (message.channel !== who.channelId) who = { ...who, channelId: message.channel, channelType: message.channel === options.publicChannelId ? "channel" : "group" };
        const delivery = await deliverInteraction(
          eventsUrl,
          blockActionsPayload(who, {
            triggerId: slack.issueTriggerId(),
            actionId,
            messageTs: message.ts,
            ...(str("block_id") === undefined ? {} : { blockId: str("block_id") }),
            ...(str("value") === undefined ? {} : { value: str("value") }),
            ...(message.threadTs === undefined ? {} : { threadTs: message.threadTs }),
            ...(str("text") === undefined ? {} : { text: str("text") }),
          }),
          signingSecret,
        );
        return answered(delivery);
      }
      case "/sandbox/api/view_submission": {
        const open = recorder.openView;
        if (open === undefined || open.id !== str("viewId")) return json(409, { error: "that modal is no longer open" });
        const values = typeof body.values === "object" && body.values !== null ? (body.values as Record<string, unknown>) : {};
        const delivery = await deliverInteraction(
          eventsUrl,
          viewSubmissionPayload(who, {
            triggerId: slack.issueTriggerId(),
            id: open.id,
            callbackId: String(open.view.callback_id ?? ""),
            privateMetadata: String(open.view.private_metadata ?? ""),
            values,
          }),
          signingSecret,
        );
        // Slack keeps the modal open when the ack carries errors; otherwise it closes.
        const ack = parseJsonObject(delivery.text);
        if (delivery.status !== 200) return answered(delivery);
        if (delivery.status === 200 && ack?.response_action === "update" && typeof ack.view === "object" && ack.view !== null) recorder.replaceView(open.id, ack.view as Record<string, unknown>);
        else if (delivery.status === 200 && ack?.response_action !== "errors") recorder.closeView(open.id);
        return json(200, ack ?? { status: delivery.status });
      }
      case "/sandbox/api/view_closed": {
        const id = str("viewId");
        if (id !== undefined) recorder.closeView(id);
        return json(200, { ok: true });
      }
      default:
        return json(404, { error: "not found" });
    }
  };
}

const opt = <K extends string>(key: K, value: string | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, string>));

/** The app's answer to a delivery: an error status is a failed click the page must show (Slack would too). */
function answered(delivery: SlackDelivery, extra: Record<string, unknown> = {}): Response {
  if (delivery.status >= 200 && delivery.status < 300) return json(200, { ...extra, status: delivery.status });
  return json(502, { ...extra, error: `アプリが HTTP ${delivery.status} を返しました`, status: delivery.status, body: delivery.text.slice(0, 300) });
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  if (text.trim() === "") return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch (err) {
    if (err instanceof SyntaxError) return undefined; // not JSON (e.g. a plain-text ack): the caller decides
    throw err;
  }
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } });
}

/** A file attached on the page: `{ name, mimetype, base64 }` (a receipt for the file box). */
function sharedFile(value: unknown): { name: string; mimetype: string; bytes: Uint8Array } | "invalid" | undefined {
  if (value === undefined) return undefined;
  const f = value as { name?: unknown; mimetype?: unknown; base64?: unknown };
  if (typeof f !== "object" || f === null || typeof f.name !== "string" || f.name === "" || typeof f.mimetype !== "string" || typeof f.base64 !== "string") return "invalid";
  const bytes = new Uint8Array(Buffer.from(f.base64, "base64"));
  return bytes.byteLength === 0 || bytes.byteLength > 10 * 1024 * 1024 ? "invalid" : { name: f.name, mimetype: f.mimetype, bytes };
}
