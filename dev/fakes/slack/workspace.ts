/**
 * What a Slack workspace shows, as the fake keeps it: channel messages with threads and ephemerals, the modal a
 * user has open, the Home tab per user. The sandbox page renders this; tests read it.
 */

export interface ChannelMessage {
  ts: string;
  channel: string;
  /** Set on replies. */
  threadTs?: string;
  text: string;
  blocks?: unknown[];
  /** Posted by the app (chat.postMessage) rather than typed by a user. */
  bot: boolean;
  user?: string;
  /** chat.postEphemeral: seen only by `user`. */
  ephemeral?: boolean;
  /** How many times chat.update rewrote it. */
  updates: number;
  /**
   * Files on it: the app's uploads (files.completeUploadExternal: id, name, title) or a user's shared file
   * (subtype file_share: the whole file object the event carries, mimetype and size included).
   */
  files?: SharedFileRef[];
}

export interface SharedFileRef {
  id: string;
  name: string;
  title: string;
  [field: string]: unknown;
}

export interface OpenView {
  id: string;
  triggerId?: string;
  hash: string;
  view: Record<string, unknown>;
}

/** A member as users.info describes them (the fields this app reads). */
export interface SlackUser {
  id: string;
  /** The member's own workspace: a Slack Connect guest from another organisation has theirs. */
  teamId: string;
  /** Enterprise Grid: the organisation the member's workspace is in (users.info `enterprise_user`). */
  enterpriseId?: string;
  isAdmin: boolean;
  isOwner: boolean;
  isPrimaryOwner: boolean;
  deleted: boolean;
  /** A bot user (an app's): users.list lists it with `is_bot`. */
  isBot?: boolean;
  /** The profile's display name and real name (users.list / users.info `profile`); either may be empty. */
  displayName?: string;
  realName?: string;
}

export class Workspace {
  readonly messages: ChannelMessage[] = [];
  /** Every modal opened and not yet closed, by view id. */
  readonly views = new Map<string, OpenView>();
  /** The App Home tab as last published, by user. */
  readonly homeViews = new Map<string, Record<string, unknown>>();
  /** Who users.info knows; anyone else is `user_not_found`. */
  readonly users = new Map<string, SlackUser>();
  /** The modals open, bottom first: views.open starts the stack, views.push adds to it (Slack allows 3). */
  private readonly stack: OpenView[] = [];
  private seq = 0;

  /** The modal on top, until it is submitted or closed (closing a pushed one shows the one under it). */
  get openView(): OpenView | undefined {
    return this.stack.at(-1);
  }

  /** views.open: a new stack of one. */
  openModal(view: OpenView): void {
    for (const v of this.stack) this.views.delete(v.id);
    this.stack.length = 0;
    this.pushModal(view);
  }

  pushModal(view: OpenView): void {
    this.views.set(view.id, view);
    this.stack.push(view);
  }

  get modalDepth(): number {
    return this.stack.length;
  }

  constructor(private readonly clock: () => number) {}

  /** Slack ts: seconds.micro, monotonic so that sorting by ts is chronological. */
  nextTs(): string {
    this.seq += 1;
    return `${Math.floor(this.clock() / 1000)}.${String(this.seq).padStart(6, "0")}`;
  }

  /** A message typed by a user (the sandbox composer, or a test): gets a fresh ts. */
  addUserMessage(input: { channel: string; user: string; text: string; threadTs?: string; files?: SharedFileRef[] }): ChannelMessage {
    const message: ChannelMessage = {
      ts: this.nextTs(),
      channel: input.channel,
      text: input.text,
      bot: false,
      user: input.user,
      updates: 0,
      ...(input.threadTs === undefined ? {} : { threadTs: input.threadTs }),
      ...(input.files === undefined ? {} : { files: input.files }),
    };
    this.messages.push(message);
    return message;
  }

  message(ts: string, channel?: string): ChannelMessage | undefined {
    return this.messages.find((m) => m.ts === ts && (channel === undefined || m.channel === channel));
  }

  /** The replies of a thread, oldest first (ephemerals included). */
  thread(ts: string): ChannelMessage[] {
    return this.messages.filter((m) => m.threadTs === ts && m.ts !== ts);
  }

  closeView(id: string): void {
    this.views.delete(id);
    const at = this.stack.findIndex((v) => v.id === id);
    if (at >= 0) this.stack.splice(at, 1);
  }

  /** response_action "update" of a view_submission: the view is replaced in place. */
  replaceView(id: string, view: Record<string, unknown>): void {
    const open = this.views.get(id);
    if (open !== undefined) open.view = view;
  }

  /** A member of `teamId` (default: a plain member of the fake's team, set by the fake). */
  addUser(user: Pick<SlackUser, "id" | "teamId"> & Partial<SlackUser>): SlackUser {
    const full: SlackUser = { isAdmin: false, isOwner: false, isPrimaryOwner: false, deleted: false, ...user };
    if (full.isPrimaryOwner) full.isOwner = true;
    if (full.isOwner) full.isAdmin = true; // Slack: owners are admins too
    this.users.set(full.id, full);
    return full;
  }

  /** Clears what happened (messages, views), not who the members are. */
  clear(): void {
    this.messages.length = 0;
    this.views.clear();
    this.homeViews.clear();
    this.stack.length = 0;
  }
}
