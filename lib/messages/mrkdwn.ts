/** Slack mrkdwn escaping of user / model text (&, <, >): shared by the cards and the plan review text. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
