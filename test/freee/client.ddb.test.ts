import { describe, expect, it } from "vitest";
import { AuthError, RateLimitedError, UpstreamServerError } from "../../lib/core/errors/taxonomy";
import type { FreeeConnectionStore } from "../../lib/store/freee-connections";
import type { FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { useFreeeWorkspace } from "../support/freee-workspace";
import { connect, makeClient } from "./helpers";

/** The freee API rules (docs/architecture.md), one test per row, against the scripted freee and a real DynamoDB. */

let fake: FakeFreee;
let store: FreeeConnectionStore;
let teamId: string;
useFreeeWorkspace({ teamPrefix: "T" }, (w) => ({ fake, store, teamId } = w));

const listEmployees = { method: "GET", path: "/hr/api/v1/employees", query: { company_id: 101, year: 2026, month: 1 } } as const;

describe("freee API table", () => {
  it("success: sends the stored access token and returns the data", async () => {
    const { client } = makeClient(store, fake, teamId);
    const result = await client.request(listEmployees);
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(fake.apiRequests()[0]!.query).toEqual({ company_id: "101", year: "2026", month: "1" });
  });

  it("401 Unauthorized → refresh the token once and retry (then success)", async () => {
    fake.expireAccessTokens();
    const { client } = makeClient(store, fake, teamId);
    const result = await client.request(listEmployees);
    expect(result.ok).toBe(true);
    expect(fake.refreshCalls).toBe(1);
    const calls = fake.apiRequests();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.authorization).not.toBe(calls[0]!.authorization);
    // The rotated tokens were stored (version bumped), and the spent refresh token is not reused.
    const stored = await store.get(teamId);
    expect(stored!.version).toBe(2);
    expect(`Bearer ${stored!.accessToken}`).toBe(calls[1]!.authorization);
  });

  it("401 twice → AuthError after exactly one refresh", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 401 }, 2);
    const { client } = makeClient(store, fake, teamId);
    const err = await client.request(listEmployees).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as AuthError).name).toBe("AuthError");
    expect(fake.refreshCalls).toBe(1);
    expect(fake.apiRequests()).toHaveLength(2);
  });

  it("401 and a refused refresh token → AuthError, connection marked for reconnect", async () => {
    fake.expireAccessTokens();
    fake.revokeRefreshTokens();
    const { client } = makeClient(store, fake, teamId);
    await expect(client.request(listEmployees)).rejects.toBeInstanceOf(AuthError);
    expect((await store.getMeta(teamId))!.status).toBe("reauth_required");
    // The next call fails fast without calling freee.
    const before = fake.requests.length;
    await expect(makeClient(store, fake, teamId).client.request(listEmployees)).rejects.toBeInstanceOf(AuthError);
    expect(fake.requests.length).toBe(before);
  });

  it("403 Forbidden → no retry, a typed result with freee's message", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 403, body: { status_code: 403, errors: [{ type: "status", messages: ["アクセス権限がありません"] }] } });
    const { client, sleeps } = makeClient(store, fake, teamId);
    const result = await client.request(listEmployees);
    expect(result).toEqual({ ok: false, status: 403, kind: "forbidden", messages: ["アクセス権限がありません"] });
    expect(fake.apiRequests()).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("404 Not Found → no retry, a typed result", async () => {
    const { client } = makeClient(store, fake, teamId);
    const result = await client.request({ method: "GET", path: "/hr/api/v1/employees/404", query: { company_id: 101, year: 2026, month: 1 } });
    expect(result).toMatchObject({ ok: false, status: 404, kind: "not_found", messages: ["従業員が見つかりません。"] });
    expect(fake.apiRequests()).toHaveLength(1);
  });

  it("429 Rate Limited → waits Retry-After (not documented by freee, honoured if sent; + 250 ms margin), then succeeds", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 429, headers: { "retry-after": "7" } }, 2);
    const { client, sleeps } = makeClient(store, fake, teamId);
    const result = await client.request(listEmployees);
    expect(result.ok).toBe(true);
    expect(sleeps).toEqual([7250, 7250]);
    expect(fake.apiRequests()).toHaveLength(3);
  });

  it("429 four times → RateLimitedError after 3 retries", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 429, headers: { "retry-after": "2" } }, 4);
    const { client, sleeps } = makeClient(store, fake, teamId);
    const err = await client.request(listEmployees).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterSeconds).toBe(3);
    expect(sleeps).toEqual([2250, 2250, 2250]);
    expect(fake.apiRequests()).toHaveLength(4);
  });

  it("429 with a Retry-After beyond the cap → RateLimitedError at once", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 429, headers: { "retry-after": "3600" } });
    const { client, sleeps } = makeClient(store, fake, teamId);
    await expect(client.request(listEmployees)).rejects.toBeInstanceOf(RateLimitedError);
    expect(sleeps).toEqual([]);
  });

  it("5xx → exponential backoff, then success", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 503 }, 2);
    const { client, sleeps } = makeClient(store, fake, teamId);
    expect((await client.request(listEmployees)).ok).toBe(true);
    expect(sleeps).toEqual([1000, 2000]);
  });

  it("5xx ×4 → UpstreamServerError after 3 retries", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 500 }, 4);
    const { client, sleeps } = makeClient(store, fake, teamId);
    const err = await client.request(listEmployees).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamServerError);
    expect((err as UpstreamServerError).name).toBe("UpstreamServerError");
    expect((err as UpstreamServerError).details).toMatchObject({ status: 500, retries: 3 });
    expect(sleeps).toEqual([1000, 2000, 4000]);
    expect(fake.apiRequests()).toHaveLength(4);
  });

  it("400 validation error → no retry, a typed `rejected` result", async () => {
    fake.fail({ path: "/api/1/deals" }, { status: 400, body: { status_code: 400, errors: [{ type: "validation", messages: ["発生日は必須です"] }] } });
    const { client } = makeClient(store, fake, teamId);
    const result = await client.request({ method: "POST", path: "/api/1/deals", body: { company_id: 101 } });
    expect(result).toEqual({ ok: false, status: 400, kind: "rejected", messages: ["発生日は必須です"] });
  });

  it("a workspace without a connection → AuthError (not connected)", async () => {
    const { client } = makeClient(store, fake, "T-none");
    const err = await client.request(listEmployees).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as AuthError).details).toMatchObject({ reason: "not_connected" });
  });
});

describe("serialised refresh (single-use refresh tokens)", () => {
  it("5 concurrent calls with an expired token → exactly one refresh and five successes", async () => {
    const expiredTeam = `${teamId}-exp`;
    await connect(store, fake, expiredTeam, -60_000);
    fake.expireAccessTokens();
    fake.refreshDelayMs = 50;
    // Five separate clients: five Lambda instances sharing only the table item.
    const clients = Array.from({ length: 5 }, () => makeClient(store, fake, expiredTeam).client);
    const results = await Promise.all(clients.map((c) => c.request(listEmployees)));
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true]);
    expect(fake.refreshCalls).toBe(1);
    expect(fake.tokenRequests("refresh_token")).toHaveLength(1);
    const tokens = new Set(fake.apiRequests().map((r) => r.authorization));
    expect(tokens.size).toBe(1);
    expect((await store.get(expiredTeam))!.version).toBe(2);
  });

  it("5 concurrent calls that meet a 401 → exactly one refresh and five successes", async () => {
    fake.expireAccessTokens();
    fake.refreshDelayMs = 50;
    const clients = Array.from({ length: 5 }, () => makeClient(store, fake, teamId).client);
    const results = await Promise.all(clients.map((c) => c.request(listEmployees)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(fake.refreshCalls).toBe(1);
  });

  it("a lease left by a crashed caller expires and the next caller refreshes", async () => {
    const meta = (await store.getMeta(teamId))!;
    expect(await store.tryAcquireRefreshLease(teamId, meta.version, "crashed", 30)).toBe(true);
    fake.expireAccessTokens();
    const { client } = makeClient(store, fake, teamId, { refreshLeaseMs: 30 });
    expect((await client.request(listEmployees)).ok).toBe(true);
    expect(fake.refreshCalls).toBe(1);
  });
});
