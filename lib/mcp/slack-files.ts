import type { WebClient } from "@slack/web-api";
import type { SlackFileRef } from "../core/domain/records";
import { classifyFetchFailure } from "../core/errors/classify";
import { AuthError, UpstreamServerError } from "../core/errors/taxonomy";
import type { FreeeFile } from "../freee/types";
import type { BotTokenResolver } from "../slack-api/bot-token";
import { classifySlackError, slackErrorCode } from "../slack-api/web-client";
import { RECEIPT_MAX_BYTES } from "../freee/tools/upload-tool";

/**
 * The bytes of a file shared with the request, fetched from Slack when its approved upload step runs (and never
 * before, never for another step): `files.info` by id with the workspace's bot token (scope `files:read`), then
 * `url_private_download` with the same token. The file must still be the one the approver saw — same id, name,
 * size and type as the request message recorded — or it is not sent.
 * The token goes only to Slack's file host (`https://files.slack.com`, or SLACK_FILES_ORIGIN for a local fake):
 * files.info's answer decides the URL, and a URL elsewhere is refused rather than given the bot token.
 */

export type FileFetch = { ok: true; file: FreeeFile } | { ok: false; why: "gone" | "changed" | "too_large"; detail: string };

export interface SlackFileFetcherOptions {
  tokens: BotTokenResolver;
  clientFor: (token: string) => Pick<WebClient, "files">;
  /** Origins the bot token may be sent to for a download. */
  fileOrigins: readonly string[];
  fetch?: typeof fetch;
  timeoutMs?: number;
  maxBytes?: number;
}

export const SLACK_FILE_HOST = "https://files.slack.com";
export const SLACK_FILE_DOWNLOAD_TIMEOUT_MS = 30_000;

export class SlackFileFetcher {
  constructor(private readonly o: SlackFileFetcherOptions) {}

  async fetchFile(thread: { teamId: string; enterpriseId?: string }, expected: SlackFileRef): Promise<FileFetch> {
    const maxBytes = this.o.maxBytes ?? RECEIPT_MAX_BYTES;
    if (expected.size > maxBytes) return { ok: false, why: "too_large", detail: `${expected.size} bytes > ${maxBytes}` };
    const { botToken } = await this.o.tokens.resolve(thread.teamId, thread.enterpriseId);
    let file: Record<string, unknown>;
    try {
      const info = await this.o.clientFor(botToken).files.info({ file: expected.fileId });
      file = (info.file ?? {}) as Record<string, unknown>;
    } catch (err) {
      const code = slackErrorCode(err);
      if (code === "file_not_found" || code === "file_deleted") return { ok: false, why: "gone", detail: code };
      throw classifySlackError(err, "files.info");
    }
    if (file.mode === "tombstone" || file.is_external === true) return { ok: false, why: "gone", detail: String(file.mode ?? "external") };
    const now = { name: file.name, size: file.size, mimetype: file.mimetype };
    if (file.id !== expected.fileId || now.size !== expected.size || now.mimetype !== expected.mimetype) {
      return { ok: false, why: "changed", detail: `approved ${expected.size} bytes ${expected.mimetype}, now ${String(now.size)} bytes ${String(now.mimetype)}` };
    }
    const url = typeof file.url_private_download === "string" ? file.url_private_download : file.url_private;
    if (typeof url !== "string") return { ok: false, why: "gone", detail: "no download URL" };
    if (!this.o.fileOrigins.includes(new URL(url).origin)) {
      throw new AuthError(`files.info named a download URL outside Slack's file host (${new URL(url).origin}): the bot token is not sent there`, { service: "slack", details: { fileId: expected.fileId } });
    }
    const bytes = await this.download(url, botToken, expected);
    if (bytes.byteLength !== expected.size) return { ok: false, why: "changed", detail: `approved ${expected.size} bytes, downloaded ${bytes.byteLength}` };
    return { ok: true, file: { name: expected.name, type: expected.mimetype, bytes } };
  }

  private async download(url: string, token: string, expected: SlackFileRef): Promise<Uint8Array> {
    let res: Response;
    try {
      res = await (this.o.fetch ?? fetch)(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(this.o.timeoutMs ?? SLACK_FILE_DOWNLOAD_TIMEOUT_MS) });
    } catch (err) {
      throw classifyFetchFailure(err, `Slack file ${expected.fileId}: download`);
    }
    if (res.status >= 500) throw new UpstreamServerError(`Slack file ${expected.fileId}: HTTP ${res.status}`, { details: { status: res.status } });
    // Slack answers a file request it will not serve with its sign-in page (200, text/html), not with a 401.
    const type = res.headers.get("content-type") ?? "";
    if (!res.ok || (type.startsWith("text/html") && !expected.mimetype.startsWith("text/html"))) {
      await res.body?.cancel();
      throw new AuthError(`Slack file ${expected.fileId}: Slack did not serve the file (HTTP ${res.status}, ${type || "no type"}); the app needs files:read`, {
        service: "slack",
        details: { fileId: expected.fileId, status: res.status },
      });
    }
    return new Uint8Array(await res.arrayBuffer());
  }
}
