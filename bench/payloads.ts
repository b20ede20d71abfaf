/**
 * Slack deliveries for the bench, in the shapes Slack sends (Events API envelope, block_actions interaction).
 * Signed by test/support/slack-signing.ts, exactly as Slack signs them.
 */
export const BENCH_TEAM = "T0001";
export const BENCH_CHANNEL = "C0001";
export const BENCH_REQUESTER = "UREQ";

let seq = 0;

/** A fresh message ts (a new message every time, so every delivery starts a new task). */
export function nextTs(): string {
  seq += 1;
  return `1710000000.${String(seq).padStart(6, "0")}`;
}

export function messageEnvelope(ts: string, text = "来月から山田さんの基本給を30万円に変更して") {
  return {
    token: "legacy-verification-token",
    team_id: BENCH_TEAM,
    api_app_id: "A0001",
    type: "event_callback",
    event_id: `Ev${ts.replace(".", "")}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: BENCH_TEAM, user_id: "UBOT", is_bot: true, is_enterprise_install: false }],
    event: { type: "message", channel: BENCH_CHANNEL, channel_type: "channel", user: BENCH_REQUESTER, text, ts, event_ts: ts },
  };
}

/** One button click (block_actions) with the button's value as the card puts it. */
export function buttonClick(actionId: string, value: unknown, userId = BENCH_REQUESTER) {
  return {
    type: "block_actions",
    user: { id: userId, username: "u", team_id: BENCH_TEAM },
    api_app_id: "A0001",
    token: "legacy",
    team: { id: BENCH_TEAM, domain: "example" },
    channel: { id: BENCH_CHANNEL, name: "general" },
    container: { type: "message", message_ts: "1800000000.000001", channel_id: BENCH_CHANNEL, is_ephemeral: false },
    trigger_id: "1234.5678.abcdef",
    message: { ts: "1800000000.000001", text: "card" },
    response_url: "https://hooks.slack.invalid/actions/x",
    actions: [{ type: "button", action_id: actionId, block_id: "b1", value: JSON.stringify(value), action_ts: "1800000000.1" }],
  };
}

/** The reject modal's view_submission, as Slack sends it (private_metadata holds ids only). */
export function rejectSubmission(metadata: { taskId: string; kind: string; version: number }, reason: string, userId = BENCH_REQUESTER) {
  return {
    type: "view_submission",
    team: { id: BENCH_TEAM, domain: "example" },
    user: { id: userId, username: "u", team_id: BENCH_TEAM },
    api_app_id: "A0001",
    token: "legacy",
    trigger_id: "1234.5678.abcdef",
    view: {
      id: "V0001",
      team_id: BENCH_TEAM,
      type: "modal",
      callback_id: "reject_reason",
      private_metadata: JSON.stringify(metadata),
      blocks: [],
      state: { values: { reason: { reason_input: { type: "plain_text_input", value: reason } } } },
      hash: "h",
      title: { type: "plain_text", text: "却下理由" },
      app_id: "A0001",
      bot_id: "BBOT",
    },
  };
}
