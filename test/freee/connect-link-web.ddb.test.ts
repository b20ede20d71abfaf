import { afterAll, beforeAll, expect, it } from "vitest";
import { AuditLog } from "../../lib/store/audit-log";
import { MAX_CONNECT_LINK_TTL_SECONDS } from "../../lib/freee/connect-link";
import type { FreeeOAuth } from "../../lib/freee/oauth";
import { verifyState } from "../../lib/freee/signed-state";
import { AdminMessages } from "../../lib/core/messages/ja";
import { createLogger } from "../../lib/core/observability/logger";
import { TaskStore } from "../../lib/store/task-store";
import { startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { startIngressOnFakes } from "../ingress/ingress-harness";
import { getRequest } from "../support/slack-signing";
import { oauthOnFake } from "./helpers";

/**
 * freee connect links through the web handler (Function URL events in, HTTP responses out): a link lives at most
 * ten minutes, opens the flow once, and only the browser that opened it (its cookie) can finish it.
 */
const SECRET = "freee-state-secret-for-web-tests";
const HOST = "ingress.example.test";
let fake: FakeFreee;
let web: Awaited<ReturnType<typeof startIngressOnFakes>>;
let flow: FreeeOAuth;
let now = new Date();
let team = 0;

beforeAll(async () => {
  fake = await startFakeFreee();
  let port: FreeeOAuth | undefined;
  web = await startIngressOnFakes({}, { connect: (r) => port!.connect(r), callback: (r) => port!.callback(r) });
  const logger = createLogger("connect-link-web-test");
  const audit = new AuditLog(new TaskStore(web.table.doc, web.table.tableName), logger);
  // Configured longer than allowed: the link still lives ten minutes.
  port = flow = oauthOnFake({ fake, table: web.table, stateSecret: SECRET, host: HOST, audit, logger }, { connectLinkTtlSeconds: 24 * 60 * 60, clock: () => now });
});
afterAll(async () => {
  await fake.stop();
  await web.table.close();
  await web.slack.close();
});

function open(link: string, headers: Record<string, string> = {}) {
  const url = new URL(link);
  return web.h.send(getRequest(url.pathname, url.searchParams.toString(), { host: HOST, ...headers }));
}
const cookieOf = (res: { cookies?: string[] }) => res.cookies!.find((c) => c.startsWith("freee_oauth_nonce="))!.split(";")[0]!;
const failed = (res: { statusCode: number; body?: string }) => res.statusCode >= 400 && String(res.body).includes(AdminMessages.freeeAuthFailed);

it("a link lives at most ten minutes, even when configured longer", async () => {
  now = new Date();
  const teamId = `TW${++team}`;
  const link = flow.buildConnectUrl(teamId, "UADMIN");
  const claims = verifyState("freee_connect", new URL(link).searchParams.get("sig")!, SECRET, now);
  expect(claims.exp - Math.floor(now.getTime() / 1000)).toBe(MAX_CONNECT_LINK_TTL_SECONDS);
  now = new Date(now.getTime() + (MAX_CONNECT_LINK_TTL_SECONDS + 1) * 1000);
  expect(failed(await open(link))).toBe(true);
  now = new Date();
});

it("a link opens the flow once: a second open (another browser, the same one again) is refused", async () => {
  const teamId = `TW${++team}`;
  const link = flow.buildConnectUrl(teamId, "UADMIN");
  const first = await open(link);
  expect(first.statusCode).toBe(302);
  expect(failed(await open(link))).toBe(true);
});

it("only the browser that opened the link finishes it, and its callback works once", async () => {
  const teamId = `TW${++team}`;
  const first = await open(flow.buildConnectUrl(teamId, "UADMIN"));
  const state = new URL(first.headers!.location as string).searchParams.get("state")!;
  const cookie = cookieOf(first);
  // Another browser (no cookie, or another flow's cookie) holding the callback URL is refused.
  expect(failed(await web.h.send(getRequest("/freee/callback", new URLSearchParams({ code: fake.issueCode(), state }).toString(), { host: HOST })))).toBe(true);
  const other = cookieOf(await open(flow.buildConnectUrl(teamId, "UADMIN")));
  expect(failed(await web.h.send(getRequest("/freee/callback", new URLSearchParams({ code: fake.issueCode(), state }).toString(), { host: HOST, cookie: other })))).toBe(true);
  // The browser that opened it connects.
  const done = await web.h.send(getRequest("/freee/callback", new URLSearchParams({ code: fake.issueCode(), state }).toString(), { host: HOST, cookie }));
  expect(done.statusCode).toBe(200);
  // The same callback again, cookie and all: refused, nothing exchanged.
  const exchanges = fake.tokenRequests("authorization_code").length;
  expect(failed(await web.h.send(getRequest("/freee/callback", new URLSearchParams({ code: fake.issueCode(), state }).toString(), { host: HOST, cookie })))).toBe(true);
  expect(fake.tokenRequests("authorization_code").length).toBe(exchanges);
});
