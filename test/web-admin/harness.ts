import { randomBytes } from "node:crypto";
import { listenFetch, type FetchServer } from "../../dev/local/node-http";
import { startFaultProxy, type FaultProxy } from "../../dev/chaos/fault-proxy";
import { createDocumentClient } from "../../lib/store/dynamo-client";
import { startFakeSlack, type FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { createLogger } from "../../lib/core/observability/logger";
import { taskIdFor, type AuditEntry } from "../../lib/core/domain/records";
import { toFetchHandler } from "../../lib/ingress/http/types";
import { AuditLog } from "../../lib/store/audit-log";
import { DynamoInstallationStore, installationCipher } from "../../lib/store/installations";
import { TaskStore } from "../../lib/store/task-store";
import { createWebFromEnv } from "../../wiring/web-env";
import { install } from "../ingress/ingress-harness";
import { startTestTable, type TestTable } from "../support/dynamo";

/**
 * The web Lambda's router (wiring/web-env.ts, as lambdas/web builds it) served on 127.0.0.1, over DynamoDB Local and
 * the fake Slack (multi-workspace mode: two installed workspaces, T0001 and T0002, and a third, T0003, with members
 * but no installation). Sign-in goes through the fake's OpenID endpoints; `Browser` keeps cookies as a browser does.
 */
export interface AdminHarness {
  url: string;
  table: TestTable;
  slack: FakeSlack;
  store: TaskStore;
  env: Record<string, string>;
  /** In front of DynamoDB Local for the web Lambda (the seeds write behind it): arm it to stop the database. */
  db: FaultProxy;
  close(): Promise<void>;
}

export const USERS = {
  admin1: { id: "UADMIN1", teamId: "T0001" },
  approver1: { id: "UAPPROVER1", teamId: "T0001" },
  member1: { id: "UMEMBER1", teamId: "T0001" },
  admin2: { id: "UADMIN2", teamId: "T0002" },
  member2: { id: "UMEMBER2", teamId: "T0002" },
  outsider: { id: "UOUTSIDER", teamId: "T0003" },
} as const;

export async function startAdmin(extraEnv: Record<string, string> = {}): Promise<AdminHarness> {
  const [table, slack] = await Promise.all([startTestTable(), startFakeSlack()]);
  const db = await startFaultProxy({ dependency: "DynamoDB", target: table.endpoint, phases: () => [] });
  const log = createLogger("web-admin-test");
  const http: FetchServer = await listenFetch("127.0.0.1", 0, log);
  const url = `http://127.0.0.1:${http.port}`;
  const slackBase = slack.url.replace(/\/api\/$/, "");
  const env: Record<string, string> = {
    ...table.env,
    DYNAMODB_ENDPOINT: db.url,
    SFN_ENDPOINT: "http://127.0.0.1:9",
    SLACK_API_URL: slack.url,
    SLACK_CLIENT_ID: "fake-slack-client-id",
    SLACK_CLIENT_SECRET: "fake-slack-client-secret",
    SLACK_STATE_SECRET: "state-secret-0123456789-0123456789",
    PUBLIC_BASE_URL: url,
    FREEE_CONNECT_BASE_URL: url,
    FREEE_CLIENT_ID: "fake-freee-client",
    FREEE_CLIENT_SECRET: "fake-freee-secret",
    FREEE_STATE_SECRET: "freee-state-secret-0123456789",
    FREEE_TOKEN_LOCAL_KEY: randomBytes(32).toString("base64"),
    FREEE_API_BASE_URL: "http://127.0.0.1:9",
    FREEE_OAUTH_BASE_URL: "http://127.0.0.1:9",
    SLACK_OPENID_AUTHORIZE_URL: `${slackBase}/openid/connect/authorize`,
    SLACK_OPENID_TOKEN_URL: `${slack.url}openid.connect.token`,
    SLACK_OPENID_JWKS_URL: `${slackBase}/openid/connect/keys`,
    ADMIN_USER_IDS: "",
    // Each page asks Slack for the members again (the tests change them between pages).
    WEB_ADMIN_PEOPLE_CACHE_SECONDS: "0",
    LOG_LEVEL: "SILENT",
    ...extraEnv,
  };
  slack.workspace.addUser({ ...USERS.admin1, isOwner: true });
  slack.workspace.addUser(USERS.approver1);
  slack.workspace.addUser(USERS.member1);
  slack.workspace.addUser({ ...USERS.admin2, isAdmin: true });
  slack.workspace.addUser(USERS.member2);
  slack.workspace.addUser({ ...USERS.outsider, isOwner: true });
  const doc = createDocumentClient(env);
  const installations = new DynamoInstallationStore(doc, table.tableName, { cipher: installationCipher(env) });
  await install({ installations, slack }, "T0001");
  await install({ installations, slack }, "T0002");
  const web = await createWebFromEnv(env, { doc, installations, log });
  http.setHandler(toFetchHandler(web));
  return {
    url,
    table,
    slack,
    store: new TaskStore(table.doc, table.tableName),
    env,
    db,
    async close() {
      await http.close();
      doc.destroy();
      await db.close();
      await slack.close();
      await table.close();
    },
  };
}

let seq = 0;
/** A task of a workspace, created at `at`, with its `task.created` audit entry (as the ingress records it). */
export async function seedTask(h: AdminHarness, teamId: string, requesterId: string, text: string, at: string) {
  seq += 1;
  const thread = { teamId, channelId: "C1", messageTs: `${Math.floor(Date.parse(at) / 1000)}.${String(seq).padStart(6, "0")}` };
  const store = new TaskStore(h.table.doc, h.table.tableName, () => new Date(at));
  const { record } = await store.createTask({ thread, requesterId, requestText: text, pipelineExecutionName: taskIdFor(thread) });
  await audit(h, { teamId, taskId: record.taskId, action: "task.created", subject: "task", actor: requesterId, at });
  return record;
}

export async function audit(h: AdminHarness, e: { teamId: string; taskId?: string; action: string; subject: string; actor: string; at: string; layer?: AuditEntry["layer"]; errorType?: string; errorMessage?: string; details?: Record<string, unknown> }) {
  const log = new AuditLog(h.store, createLogger("seed"), () => new Date(e.at));
  const entry = log.entryOf({ teamId: e.teamId, ...(e.taskId === undefined ? {} : { taskId: e.taskId }), action: e.action, subject: e.subject, actor: e.actor, ...(e.layer === undefined ? {} : { layer: e.layer }), details: e.details ?? {} });
  await h.store.appendAudit({ ...entry, ...(e.errorType === undefined ? {} : { errorType: e.errorType, errorMessage: e.errorMessage ?? `${e.errorType} happened` }) });
}

/** A browser's cookie jar over fetch: follows nothing by itself (each redirect is looked at), keeps Set-Cookie. */
export class Browser {
  readonly cookies = new Map<string, string>();
  constructor(private readonly base: string) {}

  async get(path: string): Promise<Response> {
    return this.send(path, { method: "GET" });
  }

  async post(path: string, form: Record<string, string>): Promise<Response> {
    return this.send(path, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form).toString() });
  }

  /** Follow redirects as a browser would, to the final page. */
  async follow(response: Response, max = 10): Promise<Response> {
    let res = response;
    for (let i = 0; i < max && res.status >= 300 && res.status < 400; i++) res = await this.get(res.headers.get("location")!);
    return res;
  }

  async send(path: string, init: RequestInit): Promise<Response> {
    const url = new URL(path, this.base);
    const headers = new Headers(init.headers);
    const mine = url.origin === new URL(this.base).origin;
    if (mine && this.cookies.size > 0) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    if (mine) {
      for (const c of res.headers.getSetCookie()) {
        const [pair, ...attrs] = c.split(";");
        const eq = pair!.indexOf("=");
        const [name, value] = [pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim()];
        if (attrs.some((a) => /max-age=0/i.test(a.trim())) || value === "") this.cookies.delete(name);
        else this.cookies.set(name, value);
      }
    }
    return res;
  }

  /** Sign in as a member of the fake Slack, starting from `path` (the page asked for), ending where it lands. */
  async signIn(userId: string, path = "/admin"): Promise<Response> {
    const asked = await this.get(path);
    if (asked.status !== 302) throw new Error(`expected a redirect to /login, got ${asked.status}`);
    const login = new URL(asked.headers.get("location")!, this.base);
    const start = await this.get(`/login/slack${login.search}`);
    const authorize = new URL(start.headers.get("location")!);
    authorize.searchParams.set("user", userId);
    const back = await fetch(authorize, { redirect: "manual" });
    return this.follow(await this.get(back.headers.get("location")!));
  }
}

/** The CSRF token of the page's forms. */
export function csrfOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (m === null) throw new Error("no CSRF token on the page");
  return m[1]!;
}
