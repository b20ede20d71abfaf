import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FatalConfigError } from "../../lib/core/errors/taxonomy";
import { disconnectFreee } from "../../lib/store/freee-disconnect";
import { Keys } from "../../lib/store/table";
import { startTestTable, type TestTable } from "../support/dynamo";
import { localKey, makeStore } from "./helpers";

let table: TestTable;
beforeAll(async () => {
  table = await startTestTable();
});
afterAll(async () => table.close());

const tokens = { accessToken: "plain-access-token-AAA", refreshToken: "plain-refresh-token-BBB", accessTokenExpiresAt: "2026-12-01T00:00:00.000Z", scope: "read write" };

it("stores tokens encrypted at rest: the raw item holds no plaintext token", async () => {
  const store = makeStore(table);
  await store.save({ teamId: "TS1", tokens, companyId: 101, companyName: "テスト株式会社", connectedBy: "U1" });
  const raw = await table.doc.send(new GetCommand({ TableName: table.tableName, Key: Keys.freeeConnection("TS1") }));
  const text = JSON.stringify(raw.Item);
  expect(text).not.toContain("plain-access-token-AAA");
  expect(text).not.toContain("plain-refresh-token-BBB");
  expect(raw.Item).toMatchObject({ cipher: "local", companyId: 101, version: 1, status: "active" });
  expect(String(raw.Item!.tokens)).toMatch(/^local:v1:/);
  const back = await store.get("TS1");
  expect(back).toMatchObject({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, companyId: 101, version: 1 });
});

it("a reconnect bumps the version and clears a reauth mark", async () => {
  const store = makeStore(table);
  await store.save({ teamId: "TS2", tokens, companyId: 101, connectedBy: "U1" });
  expect(await store.markReauthRequired("TS2", 1, "refresh_rejected")).toBe(true);
  expect((await store.getMeta("TS2"))!.status).toBe("reauth_required");
  const again = await store.save({ teamId: "TS2", tokens, companyId: 202, connectedBy: "U2" });
  expect(again).toMatchObject({ version: 2, status: "active", companyId: 202, connectedBy: "U2" });
  expect(again.reauthReason).toBeUndefined();
});

it("refresh lease: one holder at a time, only for the current version; refreshed tokens bump the version", async () => {
  const store = makeStore(table);
  await store.save({ teamId: "TS3", tokens, companyId: 101, connectedBy: "U1" });
  expect(await store.tryAcquireRefreshLease("TS3", 1, "a", 10_000)).toBe(true);
  expect(await store.tryAcquireRefreshLease("TS3", 1, "b", 10_000)).toBe(false);
  expect(await store.tryAcquireRefreshLease("TS3", 2, "b", 10_000)).toBe(false);
  const next = await store.storeRefreshedTokens("TS3", 1, { ...tokens, accessToken: "new-access", refreshToken: "new-refresh" });
  expect(next).toMatchObject({ version: 2, accessToken: "new-access" });
  expect(next!.refreshLeaseOwner).toBeUndefined();
  // A stale writer (still on version 1) cannot overwrite newer tokens.
  expect(await store.storeRefreshedTokens("TS3", 1, tokens)).toBeUndefined();
  expect((await store.get("TS3"))!.accessToken).toBe("new-access");
  // Released leases let the next caller in at once.
  expect(await store.tryAcquireRefreshLease("TS3", 2, "c", 10_000)).toBe(true);
  await store.releaseRefreshLease("TS3", "c");
  expect(await store.tryAcquireRefreshLease("TS3", 2, "d", 10_000)).toBe(true);
});

it("an item copied to another workspace does not decrypt (the workspace id is bound to the ciphertext)", async () => {
  const key = localKey();
  const store = makeStore(table, key);
  await store.save({ teamId: "TS4", tokens, companyId: 101, connectedBy: "U1" });
  const raw = await table.doc.send(new GetCommand({ TableName: table.tableName, Key: Keys.freeeConnection("TS4") }));
  const { PutCommand } = await import("@aws-sdk/lib-dynamodb");
  await table.doc.send(new PutCommand({ TableName: table.tableName, Item: { ...raw.Item, ...Keys.freeeConnection("TS5"), teamId: "TS5" } }));
  await expect(store.get("TS5")).rejects.toBeInstanceOf(FatalConfigError);
  // A different key cannot read it either.
  await expect(makeStore(table).get("TS4")).rejects.toBeInstanceOf(FatalConfigError);
});

it("an admin's disconnect: tokens gone from the item, read as not connected, a refresh in flight cannot write them back, twice is a no-op", async () => {
  const store = makeStore(table);
  await store.save({ teamId: "TS9", tokens, companyId: 101, connectedBy: "U1" });
  expect(await disconnectFreee(table.doc, table.tableName, { teamId: "TS9", by: "UADMIN", at: "2026-12-01T00:00:00.000Z" })).toEqual({ disconnected: true, version: 2 });
  const raw = await table.doc.send(new GetCommand({ TableName: table.tableName, Key: Keys.freeeConnection("TS9") }));
  expect(raw.Item).toMatchObject({ status: "disconnected", disconnectedBy: "UADMIN", version: 2 });
  expect(raw.Item!.tokens).toBeUndefined();
  expect(raw.Item!.gsi1pk).toBeUndefined(); // out of the scheduled refresh's index
  expect(await store.get("TS9")).toBeUndefined();
  // A refresh that started from version 1 finishes after the disconnect: its tokens are not stored.
  expect(await store.storeRefreshedTokens("TS9", 1, { ...tokens, accessToken: "late-access" })).toBeUndefined();
  expect(await store.getMeta("TS9")).toBeUndefined();
  expect(await disconnectFreee(table.doc, table.tableName, { teamId: "TS9", by: "UADMIN", at: "2026-12-01T00:00:01.000Z" })).toEqual({ disconnected: false });
  expect(await disconnectFreee(table.doc, table.tableName, { teamId: "TNEVER", by: "UADMIN", at: "2026-12-01T00:00:01.000Z" })).toEqual({ disconnected: false });
});
