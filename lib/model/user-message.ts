import type { SlackFileRef } from "../core/domain/records";
import { BadRequestError } from "../core/errors/taxonomy";

/**
 * The per-call user message: data in tagged sections, named the way the system prompts describe them.
 * Tags keep the requester's text apart from instructions (it is content, never a command).
 */
export function section(tag: string, content: string): string {
  return `<${tag}>\n${content}\n</${tag}>`;
}

export function userMessage(sections: readonly (string | undefined)[]): string {
  return sections.filter((s): s is string => s !== undefined).join("\n\n");
}

/** Today's date in Japan (YYYY-MM-DD): the requesters' calendar, whatever the Lambda's time zone. */
export function todayInTokyo(now: Date): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo", year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
}

/**
 * Inputs are checked before any model call: an empty rejection reason or plan is a caller bug (the modal
 * refuses empty reasons), and retrying cannot fix it.
 */
export function requireText(value: string | undefined, what: string, layer: string): string {
  if (value === undefined || value.trim() === "") {
    throw new BadRequestError(`${layer}: ${what} is empty`, { details: { layer, missing: what } });
  }
  return value;
}

/**
 * The files shared with the request, as the planners see them: id, name, type and size — never content or a URL
 * (the file reaches freee only through an approved upload step). Undefined when there are none.
 */
export function attachmentsSection(attachments: readonly SlackFileRef[] | undefined): string | undefined {
  if (attachments === undefined || attachments.length === 0) return undefined;
  return section("attachments", JSON.stringify(attachments.map((a) => ({ fileId: a.fileId, name: a.name, mimetype: a.mimetype, size: a.size })), null, 2));
}
