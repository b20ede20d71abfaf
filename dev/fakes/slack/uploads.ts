import { randomBytes } from "node:crypto";
import type { Workspace } from "./workspace";

/**
 * Slack's file upload as `files.uploadV2` of @slack/web-api does it, and as strict as Slack where the app relies
 * on it: files.getUploadURLExternal (filename, a positive byte length) returns an upload URL on this server; the
 * bytes are POSTed there (multipart, field `body`) and must be exactly that long; files.completeUploadExternal
 * shares uploaded files once, in a channel and — with thread_ts — as a reply to a parent message (never to a reply).
 * The shared file is a message in the workspace, its text the initial comment, with the file's name and content.
 */
export interface UploadedFile {
  id: string;
  filename: string;
  title?: string;
  length: number;
  content?: Buffer;
  state: "pending" | "uploaded" | "shared";
}

type Answer = Record<string, unknown>;

export class FakeUploads {
  readonly files = new Map<string, UploadedFile>();

  constructor(private readonly workspace: Workspace) {}

  /** `files.*` methods; undefined for any other method. */
  method(name: string, body: Record<string, unknown>, baseUrl: string, botUserId: string): Answer | undefined {
    if (name === "files.getUploadURLExternal") {
      const length = Number(body.length);
      if (typeof body.filename !== "string" || body.filename === "") return { ok: false, error: "invalid_arguments", response_metadata: { messages: ["[ERROR] missing required field: filename"] } };
      if (!Number.isInteger(length) || length <= 0) return { ok: false, error: "invalid_arguments", response_metadata: { messages: ["[ERROR] length must be a positive integer"] } };
      const id = `F${randomBytes(5).toString("hex").toUpperCase()}`;
      this.files.set(id, { id, filename: body.filename, length, state: "pending" });
      return { ok: true, upload_url: `${baseUrl}upload/v1/${id}`, file_id: id };
    }
    if (name === "files.completeUploadExternal") return this.complete(body, botUserId);
    return undefined;
  }

  /** The POST to an upload URL: the bytes of a file asked for, exactly as long as announced. */
  async receive(request: Request): Promise<Response> {
    const id = new URL(request.url).pathname.split("/").at(-1) ?? "";
    const file = this.files.get(id);
    if (request.method !== "POST" || file === undefined || file.state !== "pending") return new Response("invalid upload", { status: 404 });
    const type = request.headers.get("content-type") ?? "";
    const bytes = type.startsWith("multipart/form-data") ? await blobOf(await request.formData()) : Buffer.from(await request.arrayBuffer());
    if (bytes === undefined || bytes.length !== file.length) return new Response(`size mismatch: announced ${file.length}, got ${bytes?.length ?? 0}`, { status: 400 });
    Object.assign(file, { content: bytes, state: "uploaded" });
    return new Response(`OK - ${bytes.length}`, { status: 200 });
  }

  private complete(body: Record<string, unknown>, botUserId: string): Answer {
    const entries = typeof body.files === "string" ? (JSON.parse(body.files) as unknown) : body.files;
    if (!Array.isArray(entries) || entries.length === 0) return { ok: false, error: "invalid_arguments", response_metadata: { messages: ["[ERROR] missing required field: files"] } };
    const files = entries.map((e) => this.files.get(String((e as { id?: unknown }).id)));
    if (files.some((f) => f === undefined || f.state !== "uploaded")) return { ok: false, error: "file_not_found" };
    const channel = typeof body.channel_id === "string" ? body.channel_id : undefined;
    const threadTs = typeof body.thread_ts === "string" ? body.thread_ts : undefined;
    if (threadTs !== undefined && channel === undefined) return { ok: false, error: "invalid_arguments", response_metadata: { messages: ["[ERROR] thread_ts needs channel_id"] } };
    // Never a reply's ts (Slack's rule); a parent this fake never saw (a test's own message) is taken as chat.postMessage takes it.
    const parent = threadTs === undefined ? undefined : this.workspace.message(threadTs, channel);
    if (parent?.threadTs !== undefined && parent.threadTs !== parent.ts) return { ok: false, error: "invalid_thread_ts" };
    entries.forEach((e, i) => Object.assign(files[i] as UploadedFile, { state: "shared", ...(typeof (e as { title?: unknown }).title === "string" ? { title: (e as { title: string }).title } : {}) }));
    if (channel !== undefined) {
      const text = typeof body.initial_comment === "string" ? body.initial_comment : "";
      this.workspace.messages.push({ ts: this.workspace.nextTs(), channel, text, bot: true, user: botUserId, updates: 0, ...(threadTs === undefined ? {} : { threadTs }), files: (files as UploadedFile[]).map((f) => ({ id: f.id, name: f.filename, title: f.title ?? f.filename })) });
    }
    return { ok: true, files: (files as UploadedFile[]).map((f) => ({ id: f.id, title: f.title ?? f.filename, name: f.filename })) };
  }
}

async function blobOf(form: FormData): Promise<Buffer | undefined> {
  const part = form.get("body");
  return part instanceof Blob ? Buffer.from(await part.arrayBuffer()) : undefined;
}
