import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { MAX_CONNECT_LINK_TTL_SECONDS } from "../../lib/freee/connect-link";
import type { FreeeOAuth } from "../../lib/freee/oauth";
import { verifyState } from "../../lib/freee/signed-state";
import { HomeActionIds } from "../../lib/ingress/home";
import { AuditLog } from "../../lib/store/audit-log";
import { createLogger } from "../../lib/core/observability/logger";
import { oauthOnFake } from "../freee/helpers";
import { getRequest, signedInteraction, signedJson } from "../support/slack-signing";
import { blockAction, homeOpened, install, startIngressOnFakes } from "./ingress-harness";

/**
 * The freee connect button of App Home links to a single-use, ten-minute link. Each time the Home is opened it is
 * built afresh; a Home left open longer, or a link already opened, is renewed when the button is clicked (Slack
 * sends the click as an action): the Home is published again with a live link, so the button is never left dead.
 */
const SECRET = "freee-state-secret-for-freshness";
const HOST = "web.example.test";
let fake: FakeFreee;
let web: Awaited<ReturnType<typeof startIngressOnFakes>>;
let flow: FreeeOAuth;
let now = new Date();

beforeAll(async () => {
  fake = await startFakeFreee();
  let port: FreeeOAuth | undefined;
  web = await startIngressOnFakes({}, {
    connect: (r) => port!.connect(r),
    callback: (r) => port!.callback(r),
    buildConnectUrl: (teamId, userId) => port!.buildConnectUrl(teamId, userId),
    getConnectionStatus: async () => ({ status: "not_connected" as const }),
  });
  await install(web.h, "T1");
  const logger = createLogger("freshness-test");
  port = flow = oauthOnFake({ fake, table: web.table, stateSecret: SECRET, host: HOST, audit: new AuditLog(web.h.store, logger), logger }, { clock: () => now });
});
afterAll(async () => {
  await fake.stop();
  await web.table.close();
  await web.slack.close();
});
beforeEach(() => {
  web.slack.reset();
  now = new Date();
});
afterEach(() => expect(web.slack.takeRefused()).toEqual([]));

/** The connect button's link in the Home last published. */
function publishedLink(): string {
  const view = web.slack.callsTo("views.publish").at(-1)!.body.view as { blocks: { accessory?: { action_id?: string; url?: string } }[] };
  return view.blocks.find((b) => b.accessory?.action_id === HomeActionIds.freeeConnect)!.accessory!.url!;
}
const expiresIn = (link: string) => verifyState("freee_connect", new URL(link).searchParams.get("sig")!, SECRET, now).exp - Math.floor(now.getTime() / 1000);
const open = (link: string) => {
  const url = new URL(link);
  return web.h.send(getRequest(url.pathname, url.searchParams.toString(), { host: HOST }));
};
const clickConnect = () =>
  web.h.send(signedInteraction({ ...blockAction("T1", "UADMIN", HomeActionIds.freeeConnect, ""), container: { type: "view", view_id: "V1" }, message: undefined }));

it("every Home open builds a new ten-minute link", async () => {
  await web.h.send(signedJson(homeOpened("T1", "UADMIN")));
  const first = publishedLink();
  await web.h.send(signedJson(homeOpened("T1", "UADMIN")));
  const second = publishedLink();
  expect(second).not.toBe(first);
  expect(expiresIn(first)).toBe(MAX_CONNECT_LINK_TTL_SECONDS);
  expect(expiresIn(second)).toBe(MAX_CONNECT_LINK_TTL_SECONDS);
});

it("a Home left open past ten minutes: the click on the dead link renews the button with a live one", async () => {
  await web.h.send(signedJson(homeOpened("T1", "UADMIN")));
  const stale = publishedLink();
  now = new Date(now.getTime() + (MAX_CONNECT_LINK_TTL_SECONDS + 60) * 1000);
  // The browser opens the dead link (refused) while Slack sends the click: the Home is published again.
  expect((await open(stale)).statusCode).toBe(400);
  expect((await clickConnect()).statusCode).toBe(200);
  const fresh = publishedLink();
  expect(fresh).not.toBe(stale);
  expect((await open(fresh)).statusCode).toBe(302);
});

it("a link once opened is renewed too: the button never offers a used link", async () => {
  await web.h.send(signedJson(homeOpened("T1", "UADMIN")));
  const link = publishedLink();
  expect((await open(link)).statusCode).toBe(302);
  expect((await clickConnect()).statusCode).toBe(200);
  const next = publishedLink();
  expect(next).not.toBe(link);
  expect((await open(link)).statusCode).toBe(400);
  expect((await open(next)).statusCode).toBe(302);
});
