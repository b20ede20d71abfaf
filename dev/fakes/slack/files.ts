import { randomBytes } from "node:crypto";
import type { SharedFileRef } from "./workspace";

/**
 * Files shared in the fake workspace, as Slack serves them (https://docs.slack.dev/reference/methods/files.info,
 * https://docs.slack.dev/messaging/working-with-files): files.info needs `files:read` (`missing_scope`), an
 * unknown id is `file_not_found`, a deleted one `file_deleted`; the file object carries `url_private` /
 * `url_private_download` on the file host. The host serves the bytes only with a bot token of the workspace in
 * `Authorization`; without one it answers as Slack does — 200 with its sign-in page (text/html), not a 401.
 */

export interface SharedFile {
  id: string;
  name: string;
  mimetype: string;
  bytes: Uint8Array;
  user: string;
  created: number;
  deleted: boolean;
}

/** The file host's paths, under wherever the fake is mounted (its own server, or the sandbox's `/sandbox/slack`). */
const PATH = /\/files-pri\/([A-Z0-9]+)-(F[A-Z0-9]+)\/(download\/)?[^/]+$/;

export class SlackFiles {
  private readonly files = new Map<string, SharedFile>();
  /** Where the file host is: the fake's own server, or its mount point in the sandbox. */
  baseUrl = "";

  constructor(private readonly teamId: string) {}

  /** A file a user shared; returns the `files` entry of its `message` (subtype file_share) event. */
  share(file: { name: string; mimetype: string; bytes: Uint8Array; user: string }): SharedFileRef {
    const id = `F${randomBytes(5).toString("hex").toUpperCase()}`;
    const shared: SharedFile = { id, ...file, created: Math.floor(Date.now() / 1000), deleted: false };
    this.files.set(id, shared);
    return this.view(shared);
  }

  delete(id: string): void {
    const file = this.files.get(id);
    if (file !== undefined) file.deleted = true;
  }

  /** Replace the bytes behind an id (what a test uses to show a changed file is not sent). */
  replaceBytes(id: string, bytes: Uint8Array): void {
    const file = this.files.get(id);
    if (file !== undefined) file.bytes = bytes;
  }

  get(id: string): SharedFile | undefined {
    return this.files.get(id);
  }

  downloads = 0;

  info(body: Record<string, unknown>, scopes: readonly string[] | undefined): Record<string, unknown> {
    if (scopes !== undefined && !scopes.includes("files:read")) return { ok: false, error: "missing_scope", needed: "files:read", provided: scopes.join(",") };
    const id = typeof body.file === "string" ? body.file : undefined;
    if (id === undefined || id === "") return { ok: false, error: "invalid_arguments", response_metadata: { messages: ["[ERROR] missing required field: file"] } };
    const file = this.files.get(id);
    if (file === undefined) return { ok: false, error: "file_not_found" };
    if (file.deleted) return { ok: false, error: "file_deleted" };
    return { ok: true, file: this.view(file), comments: [], response_metadata: { next_cursor: "" } };
  }

  isFileUrl(pathname: string): boolean {
    return PATH.test(pathname);
  }

  /** The file host: the bytes for a workspace token, Slack's sign-in page otherwise. */
  download(pathname: string, tokenTeam: string | undefined): Response {
    const [, team, id] = PATH.exec(pathname) ?? [];
    const file = id === undefined ? undefined : this.files.get(id);
    if (tokenTeam === undefined || tokenTeam !== team || file === undefined || file.deleted) {
      return new Response("<!DOCTYPE html><html><head><title>Slack</title></head><body>Sign in to Slack</body></html>", { status: 200, headers: { "content-type": "text/html; charset=utf-8" } });
    }
    this.downloads += 1;
    return new Response(file.bytes, { status: 200, headers: { "content-type": file.mimetype, "content-length": String(file.bytes.byteLength) } });
  }

  private view(f: SharedFile): SharedFileRef {
    const base = `${this.baseUrl}/files-pri/${this.teamId}-${f.id}`;
    return {
      id: f.id,
      created: f.created,
      timestamp: f.created,
      name: f.name,
      title: f.name,
      mimetype: f.mimetype,
      filetype: f.name.includes(".") ? f.name.split(".").pop() : "binary",
      user: f.user,
      mode: "hosted",
      is_external: false,
      is_public: false,
      size: f.bytes.byteLength,
      url_private: `${base}/${encodeURIComponent(f.name)}`,
      url_private_download: `${base}/download/${encodeURIComponent(f.name)}`,
    };
  }
}
