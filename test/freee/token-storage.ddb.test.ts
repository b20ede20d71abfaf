import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { expect, it } from "vitest";
import { RefreshedTokensLostError, TransientError } from "../../lib/core/errors/taxonomy";
import type { FreeeConnectionStore } from "../../lib/store/freee-connections";
import type { TestTable } from "../support/dynamo";
import type { FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { useFreeeWorkspace } from "../support/freee-workspace";
import { makeClient, makeStore, pendingOf } from "./helpers";

/**
 * Refreshed tokens are never dropped: freee refresh tokens are single-use, so once freee
 * answered a refresh the new pair exists only in our hands. The table here fails the way DynamoDB does
 * (ProvisionedThroughputExceededException on the connection item's token write).
 */

let table: TestTable;
let fake: FakeFreee;
let key: string;
let store: FreeeConnectionStore;
let teamId: string;
useFreeeWorkspace({ teamPrefix: "TS" }, (w) => ({ table, fake, key, store, teamId } = w));

const listEmployees = { method: "GET", path: "/hr/api/v1/employees", query: { company_id: 101, year: 2026, month: 1 } } as const;

/** The same table, whose next `times` writes of refreshed tokens into the connection item are throttled. */
function throttlingTokenWrites(times: number, alsoParking: boolean | number = false): DynamoDBDocumentClient {
  let left = times;
  // The parking write is throttled too: always (true) or its next n attempts (a table-wide throttle that passes).
  let parkingLeft = alsoParking === true ? Infinity : alsoParking === false ? 0 : alsoParking;
  const doc = table.doc;
  const isTokenWrite = (cmd: unknown) =>
    cmd instanceof UpdateCommand && cmd.input.Key?.sk === "FREEE" && String(cmd.input.UpdateExpression).includes("version = version + :one");
  const isParking = (cmd: unknown) => cmd instanceof UpdateCommand && cmd.input.Key?.sk === "FREEE#PENDING";
  const throttled = () => Object.assign(new Error("Rate of requests exceeds the allowed throughput."), { name: "ProvisionedThroughputExceededException" });
  return {
    send: async (cmd: Parameters<DynamoDBDocumentClient["send"]>[0]) => {
      if (isParking(cmd) && parkingLeft > 0) {
        parkingLeft--;
        throw throttled();
      }
      if (left > 0 && isTokenWrite(cmd)) {
        left--;
        throw throttled();
      }
      return doc.send(cmd);
    },
  } as unknown as DynamoDBDocumentClient;
}

/** freee expires the stored access token: the next call gets 401 expired_access_token and refreshes. */
async function expireStoredAccessToken() {
  fake.expireAccessTokens();
}

/** The stored refresh token is the live one: freee accepts it for the next refresh (single-use tokens). */
async function storedRefreshTokenIsLive(): Promise<boolean> {
  fake.expireAccessTokens();
  const before = fake.refreshCalls;
  const result = await makeClient(store, fake, teamId).client.request(listEmployees);
  return result.ok && fake.refreshCalls === before + 1 && (await store.getMeta(teamId))!.status === "active";
}

/** A caller that comes a minute after now: any lease taken now has run out for it. */
const aMinuteLater = () => new Date(Date.now() + 60_000);

it("the token write fails once → it is retried, the call succeeds, and the new single-use refresh token is kept", async () => {
  await expireStoredAccessToken();
  const flaky = makeStore(table, key, throttlingTokenWrites(1));
  const { client, sleeps } = makeClient(flaky, fake, teamId);
  expect((await client.request(listEmployees)).ok).toBe(true);
  expect(fake.refreshCalls).toBe(1);
  expect(sleeps).toEqual([100]);
  expect((await store.get(teamId))!.version).toBe(2);
  // The copy parked after the first failure is gone once the connection holds the pair.
  expect(await pendingOf(store).get(teamId)).toBeUndefined();
  // Another Lambda uses the stored tokens without refreshing again.
  expect((await makeClient(store, fake, teamId).client.request(listEmployees)).ok).toBe(true);
  expect(fake.refreshCalls).toBe(1);
  expect(await storedRefreshTokenIsLive()).toBe(true);
});

it("the token write keeps failing → TransientError, the pair is parked encrypted, and the next caller promotes it without asking freee", async () => {
  await expireStoredAccessToken();
  const flaky = makeStore(table, key, throttlingTokenWrites(100));
  const first = makeClient(flaky, fake, teamId, { refreshLeaseMs: 30 });
  const err = await first.client.request(listEmployees).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TransientError);
  expect((err as TransientError).details).toMatchObject({ parked: true });
  expect(first.sleeps).toEqual([100, 200, 400, 800]);
  expect(fake.refreshCalls).toBe(1);
  const parked = (await pendingOf(store).get(teamId))!;
  expect(parked.fromVersion).toBe(1);
  // The raw parked item holds no plaintext token.
  const raw = await table.doc.send(new GetCommand({ TableName: table.tableName, Key: { pk: `TEAM#${teamId}`, sk: "FREEE#PENDING" } }));
  expect(raw.Item).toBeDefined();
  expect(JSON.stringify(raw.Item)).not.toContain(parked.tokens.refreshToken);

  // The next caller comes a minute later, when the first caller's lease has run out (a clock, not a wait).
  const { client } = makeClient(makeStore(table, key, table.doc, aMinuteLater), fake, teamId, { clock: aMinuteLater });
  expect((await client.request(listEmployees)).ok).toBe(true);
  expect(fake.refreshCalls).toBe(1);
  const stored = (await store.get(teamId))!;
  expect(stored).toMatchObject({ version: 2, status: "active", refreshToken: parked.tokens.refreshToken });
  expect(await pendingOf(store).get(teamId)).toBeUndefined();
  expect(await storedRefreshTokenIsLive()).toBe(true);
});

it("a refused refresh does not mark the workspace while a parked pair for its version exists", async () => {
  await expireStoredAccessToken();
  await makeClient(makeStore(table, key, throttlingTokenWrites(100)), fake, teamId, { refreshLeaseMs: 30 }).client.request(listEmployees).catch(() => undefined);
  // The stored refresh token is spent at freee; only the parked one is live. A minute later the lease is gone.
  const { client } = makeClient(makeStore(table, key, table.doc, aMinuteLater), fake, teamId, { clock: aMinuteLater });
  expect((await client.request(listEmployees)).ok).toBe(true);
  expect(fake.tokenRequests("refresh_token")).toHaveLength(1);
  expect((await store.getMeta(teamId))!.status).toBe("active");
});

it("a table-wide throttle that outlasts storing but not parking: parking is retried on its own, and the next caller promotes the pair", async () => {
  await expireStoredAccessToken();
  // Every token write fails; the parking write fails through the five store attempts and two more retries.
  const flaky = makeStore(table, key, throttlingTokenWrites(100, 7));
  const lost: number[] = [];
  const first = makeClient(flaky, fake, teamId, { refreshLeaseMs: 30, tokenMetrics: { freeeTokensLost: () => lost.push(1) } });
  const err = await first.client.request(listEmployees).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TransientError);
  expect(err).not.toBeInstanceOf(RefreshedTokensLostError);
  expect((err as TransientError).details).toMatchObject({ parked: true });
  expect(first.sleeps).toEqual([100, 200, 400, 800, 100, 200]);
  expect(lost).toEqual([]);
  expect((await pendingOf(store).get(teamId))!.fromVersion).toBe(1);
  const { client } = makeClient(makeStore(table, key, table.doc, aMinuteLater), fake, teamId, { clock: aMinuteLater });
  expect((await client.request(listEmployees)).ok).toBe(true);
  expect(fake.refreshCalls).toBe(1);
  expect(await storedRefreshTokenIsLive()).toBe(true);
});

it("when the parking write fails through every retry, the pair is counted lost and thrown as RefreshedTokensLostError (parked: false)", async () => {
  await expireStoredAccessToken();
  const flaky = makeStore(table, key, throttlingTokenWrites(100, true));
  const lost: number[] = [];
  const { client, sleeps } = makeClient(flaky, fake, teamId, { tokenMetrics: { freeeTokensLost: () => lost.push(1) } });
  const err = await client.request(listEmployees).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RefreshedTokensLostError);
  expect((err as TransientError).details).toMatchObject({ parked: false });
  expect(lost).toEqual([1]);
  // Store attempts' backoff, then parking's own.
  expect(sleeps).toEqual([100, 200, 400, 800, 100, 200, 400, 800, 1600]);
});

it("parking retries stop while the invocation has no time for another wait: the pair is counted lost at once", async () => {
  await expireStoredAccessToken();
  const flaky = makeStore(table, key, throttlingTokenWrites(100, true));
  const lost: number[] = [];
  const { client, sleeps } = makeClient(flaky, fake, teamId, { remainingTimeMs: () => 1_000, tokenMetrics: { freeeTokensLost: () => lost.push(1) } });
  const err = await client.request(listEmployees).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RefreshedTokensLostError);
  expect(sleeps).toEqual([]);
  expect(lost).toEqual([1]);
});
