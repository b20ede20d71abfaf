import { randomBytes } from "node:crypto";
import { FreeeClient, type FreeeClientOptions } from "../../lib/freee/client";
import { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { PendingTokenStore } from "../../lib/store/pending-freee-tokens";
import { LocalTokenCipher } from "../../lib/store/token-cipher";
import { FreeeTokenEndpoint } from "../../lib/freee/token-endpoint";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET } from "../../dev/fakes/freee/fake-freee";
import type { TestTable } from "../support/dynamo";
import { createFreeeOAuth, type FreeeOAuth, type FreeeOAuthDeps } from "../../lib/freee/oauth";
import { OneTimeUses } from "../../lib/store/freee-one-time-uses";

export const localKey = () => randomBytes(32).toString("base64");

/** What these helpers need of the freee fake (dev/fakes/freee). */
interface FreeeLike {
  url: string;
  issueTokens(): { accessToken: string; refreshToken: string };
}

const pendingStores = new WeakMap<FreeeConnectionStore, PendingTokenStore>();

/** The connection store, with its parked-token store (same table, same key) kept for `pendingOf`. */
export function makeStore(table: TestTable, key = localKey(), doc = table.doc, clock?: () => Date): FreeeConnectionStore {
  const cipher = new LocalTokenCipher(key);
  const store = new FreeeConnectionStore(doc, table.tableName, cipher, clock);
  pendingStores.set(store, new PendingTokenStore(doc, table.tableName, cipher));
  return store;
}

export function pendingOf(store: FreeeConnectionStore): PendingTokenStore {
  const pending = pendingStores.get(store);
  if (pending === undefined) throw new Error("store was not made by makeStore");
  return pending;
}

/** Which company a connection acts on and who made it: the fake's company 101 by U1 unless a test says. */
export interface ConnectedAs {
  companyId?: number;
  companyName?: string;
  connectedBy?: string;
}

/**
 * Connect a workspace to the fake with a fresh token pair, as the OAuth callback saves it; `expiresInMs` < 0
 * makes it already expired.
 */
export async function connect(store: Pick<FreeeConnectionStore, "save">, fake: Pick<FreeeLike, "issueTokens">, teamId: string, expiresInMs = 3_600_000, as: ConnectedAs = {}) {
  const pair = fake.issueTokens();
  return store.save({
    teamId,
    tokens: { ...pair, accessTokenExpiresAt: new Date(Date.now() + expiresInMs).toISOString(), scope: "read write" },
    companyId: as.companyId ?? 101,
    companyName: as.companyName ?? "テスト株式会社",
    connectedBy: as.connectedBy ?? "U1",
  });
}

export interface ClientHarness {
  client: FreeeClient;
  sleeps: number[];
}

export function makeClient(store: FreeeConnectionStore, fake: Pick<FreeeLike, "url">, teamId: string, extra: Partial<FreeeClientOptions> = {}): ClientHarness {
  const sleeps: number[] = [];
  const client = new FreeeClient({
    teamId,
    store,
    pending: pendingOf(store),
    tokenEndpoint: new FreeeTokenEndpoint(fake.url, { clientId: FAKE_CLIENT_ID, clientSecret: FAKE_CLIENT_SECRET }),
    apiBaseUrl: fake.url,
    // Retry waits are recorded, not waited; lease polls yield 2 ms so a loser does not spin.
    sleep: async (ms) => {
      sleeps.push(ms);
      await new Promise((r) => setTimeout(r, 2));
    },
    leasePollMs: 5,
    ...extra,
  });
  return { client, sleeps };
}

/**
 * The freee connect flow as the web Lambda wires it, against the freee fake over the test's table: UADMIN is the
 * workspace's admin; the links and the callback are on https://<host>. `more` adds or overrides what a test needs
 * (a clock, a link lifetime, the plan invalidator).
 */
export function oauthOnFake(
  o: { fake: Pick<FreeeLike, "url">; table: TestTable; stateSecret: string; host: string } & Pick<FreeeOAuthDeps, "audit" | "logger">,
  more: Partial<FreeeOAuthDeps> = {},
): FreeeOAuth {
  return createFreeeOAuth({
    connections: makeStore(o.table),
    uses: new OneTimeUses(o.table.doc, o.table.tableName),
    tokenEndpoint: new FreeeTokenEndpoint(o.fake.url, { clientId: FAKE_CLIENT_ID, clientSecret: FAKE_CLIENT_SECRET }),
    audit: o.audit,
    admins: { isAdmin: async ({ userId }) => userId === "UADMIN" },
    logger: o.logger,
    apiBaseUrl: o.fake.url,
    oauthBaseUrl: o.fake.url,
    clientId: FAKE_CLIENT_ID,
    stateSecret: o.stateSecret,
    redirectUri: `https://${o.host}/freee/callback`,
    publicBaseUrl: `https://${o.host}`,
    ...more,
  });
}
