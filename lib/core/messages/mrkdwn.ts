/** Slack mrkdwn escaping of user / model text (&, <, >): shared by the cards and the plan review text. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Every character that ends a line where Slack shows text (LF, CR, VT, FF, NEL, LS, PS). */
const LINE_BREAKS = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/g;
/** Control and bidi-override characters: invisible, they can make a line read as something else. */
const INVISIBLE = /[\u0000-\u0008\u000e-\u001f\u007f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** mrkdwn's formatting marks, shown as their full-width look-alikes so that no span of outside text is styled. */
const MARKS: Record<string, string> = { "*": "＊", _: "＿", "~": "～", "`": "ˋ" };

/**
 * Text from outside (freee's names and values, the models' words) as one run of plain text inside a card line:
 * it cannot end the line, style itself (`* _ ~ \``), open a quote, or form a link, mention or special form
 * (`<…>` is escaped; the text objects are `verbatim`, so Slack does not link bare URLs, @names or #channels).
 */
export function inlineMrkdwn(text: string): string {
  const flat = text.replace(LINE_BREAKS, " ").replace(/\t/g, " ").replace(INVISIBLE, "");
  // An underscore inside a word (freee_hr_update, account_items) styles nothing in Slack: it stays as it is.
  const escaped = escapeMrkdwn(flat)
    .replace(/[*~`]/g, (c) => MARKS[c]!)
    .replace(/_/g, (c, at: number, all: string) => (/[A-Za-z0-9]/.test(all[at - 1] ?? "") && /[A-Za-z0-9]/.test(all[at + 1] ?? "") ? c : MARKS[c]!));
  // A line that starts with ">" is a quote in mrkdwn, escaped or not.
  return escaped.replace(/^(\s*)&gt;/, "$1＞");
}

/**
 * Multi-line text from outside (the agent's summary, a request): every line its own quoted line of plain text,
 * so no line of it can pass for a line of the card.
 */
export function quotedMrkdwn(text: string): string {
  return text
    .trim()
    .split(LINE_BREAKS)
    .map((line) => `> ${inlineMrkdwn(line)}`)
    .join("\n");
}

/** A cell of a code block: on one line, and no backtick to close the block early. */
export function codeCell(text: string): string {
  return escapeMrkdwn(text.replace(LINE_BREAKS, " ").replace(INVISIBLE, "")).replace(/`/g, "ˋ");
}

/**
 * Text length in the unit Block Kit limits are checked in (docs/slack.md "Text limits"): UTF-16 code units, the
 * length of the JSON string Slack parses. It is never below the count of code points, so a text within the limit
 * here is within it however Slack counts characters; an emoji outside the BMP counts 2.
 */
export function slackLength(text: string): number {
  return text.length;
}

/** The longest prefix of `text` within `max` units that does not end inside a surrogate pair. */
export function cutToSlackLength(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}
