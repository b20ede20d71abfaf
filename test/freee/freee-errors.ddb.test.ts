import { describe, expect, it } from "vitest";
import { AuthError, FatalConfigError, RateLimitedError } from "../../lib/core/errors/taxonomy";
import type { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { FreeeTokenEndpoint } from "../../lib/freee/token-endpoint";
import { FreeeAuthMessages } from "../../lib/core/messages/ja";
import { useFreeeWorkspace, VirtualClock } from "../support/freee-workspace";
import { jstIso, unauthorizedBody } from "../../dev/fakes/freee/errors";
import { FAKE_CLIENT_ID, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { makeClient } from "./helpers";

/**
 * freee's errors as freee documents them, against the strict freee fake (dev/fakes/freee) and a
 * real DynamoDB. Time is virtual: the client's sleep advances the clock the fake reads, so a wait until freee's
 * reset time really finds the window reset.
 * Bodies and headers are freee's: a 401 carries `{ message, code }` (developer.freee.co.jp 40x checkpoint;
 * hr.openapi.json components.schemas.accessDeniedError), a 429 carries `X-RateLimit-*` headers whose reset is an
 * ISO time (both schemas' info.description) and, in accounting, `meta.reset` in the body
 * (accounting.openapi.json components.schemas.tooManyRequestsError).
 */

let fake: FakeFreee;
let store: FreeeConnectionStore;
let teamId: string;
// Each test's fake reads the virtual clock, which starts at a whole second of the real one.
const time = new VirtualClock();
useFreeeWorkspace({ teamPrefix: "TE", fake: time.fakeOptions }, (w) => ({ fake, store, teamId } = w));
const client = (extra: Parameters<typeof makeClient>[3] = {}) => time.client({ store, fake, teamId }, extra);

const listEmployees = { method: "GET", path: "/hr/api/v1/employees", query: { company_id: 101, year: 2026, month: 1 } } as const;
const listDeals = { method: "GET", path: "/api/1/deals", query: { company_id: 101 } } as const;
const unauthorized = (code: string, message: string) => ({ status: 401, body: { message, code } });

describe("401 by body code", () => {
  it("expired_access_token (freee expired the token) → one refresh, then the call succeeds", async () => {
    fake.expireAccessTokens();
    const { client: c } = client();
    expect((await c.request(listEmployees)).ok).toBe(true);
    expect(fake.refreshCalls).toBe(1);
    expect(fake.apiRequests().map((r) => r.status)).toEqual([401, 200]);
    expect((await store.getMeta(teamId))!.version).toBe(2);
  });

  it("HR's 403 accessDeniedError with code expired_access_token is an expired token too: one refresh", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 403, body: { error: "access_denied", message: "アクセスする権限がありません", code: "expired_access_token" } });
    const { client: c } = client();
    expect((await c.request(listEmployees)).ok).toBe(true);
    expect(fake.refreshCalls).toBe(1);
  });

  it("company_not_found (the connected user left the company) → AuthError with that reason; no refresh spent", async () => {
    const other = `${teamId}-other`;
    const pair = fake.issueTokens({ companyIds: [202] });
    await store.save({ teamId: other, tokens: { ...pair, accessTokenExpiresAt: new Date(time.now + 3_600_000).toISOString() }, companyId: 101, connectedBy: "U1" });
    const { client: c } = makeClient(store, fake, other, { clock: () => new Date(time.now) });
    const err = await c.request(listEmployees).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as AuthError).details).toMatchObject({ reason: "company_not_found", code: "company_not_found", status: 401 });
    expect(fake.refreshCalls).toBe(0);
    expect((await store.getMeta(other))!.status).toBe("active");
  });

  const notFixedByRefresh = [
    ["user_do_not_have_permission", "このAPIにアクセスしたい場合、事業所の管理者にご確認ください。"],
    ["freee_plan_limit", "有料プランをご利用中の事業所のみご利用いただけます。"],
    ["source_ip_address_limit", "接続元のIPアドレスからは、サービスをご利用いただけません。"],
    ["not_available_plan_limited_app", "現在ご契約中のプランではこのプラン限定アプリを利用できません。"],
  ] as const;
  for (const [code, message] of notFixedByRefresh) {
    it(`${code} → AuthError with reason ${code}, no refresh spent, the workspace stays connected`, async () => {
      fake.fail({ path: "/hr/api/v1/employees" }, unauthorized(code, message));
      const { client: c } = client();
      const err = await c.request(listEmployees).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthError);
      expect((err as AuthError).details).toMatchObject({ reason: code, code, status: 401, messages: [message] });
      expect(fake.refreshCalls).toBe(0);
      expect(fake.apiRequests()).toHaveLength(1);
      expect((await store.getMeta(teamId))!).toMatchObject({ status: "active", version: 1 });
    });
  }

  it("re_authorization_required → AuthError, no refresh, and the connection is marked for reconnect (App Home offers it)", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, unauthorized("re_authorization_required", "アプリのバージョンが更新されてデータアクセス範囲が追加されています。再度認可をしてください。"));
    const { client: c } = client();
    const err = await c.request(listEmployees).catch((e: unknown) => e);
    expect((err as AuthError).details.reason).toBe("re_authorization_required");
    expect(fake.refreshCalls).toBe(0);
    expect(await store.getMeta(teamId)).toMatchObject({ status: "reauth_required", reauthReason: "re_authorization_required" });
  });

  it("an undocumented code → AuthError reason unrecognized (code kept), no refresh", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, unauthorized("something_new", "?"));
    const { client: c } = client();
    const err = await c.request(listEmployees).catch((e: unknown) => e);
    expect((err as AuthError).details).toMatchObject({ reason: "unrecognized", code: "something_new" });
    expect(fake.refreshCalls).toBe(0);
  });

  it("still expired after the refresh → AuthError token_rejected_after_refresh after exactly one refresh", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 401, body: unauthorizedBody("expired_access_token") }, 2);
    const { client: c } = client();
    const err = await c.request(listEmployees).catch((e: unknown) => e);
    expect((err as AuthError).details.reason).toBe("token_rejected_after_refresh");
    expect(fake.refreshCalls).toBe(1);
  });

  it("every reason has its own Japanese text", () => {
    const texts = Object.values(FreeeAuthMessages);
    expect(new Set(texts).size).toBe(texts.length);
  });
});

describe("token endpoint refusals", () => {
  it("invalid_client (the app's secret is wrong) → FatalConfigError; the workspace is not flagged and the lease is given back", async () => {
    fake.expireAccessTokens();
    const { client: c } = client({ tokenEndpoint: new FreeeTokenEndpoint(fake.url, { clientId: FAKE_CLIENT_ID, clientSecret: "rotated-but-not-updated" }) });
    const err = await c.request(listEmployees).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FatalConfigError);
    expect((err as FatalConfigError).details).toMatchObject({ oauthError: "invalid_client", grantType: "refresh_token" });
    const meta = (await store.getMeta(teamId))!;
    expect(meta.status).toBe("active");
    expect(meta.reauthReason).toBeUndefined();
    expect(meta.refreshLeaseOwner).toBeUndefined();
    // The refresh token was not spent: with the right secret the next call refreshes and succeeds.
    const { client: fixed } = client();
    expect((await fixed.request(listEmployees)).ok).toBe(true);
  });

  it("invalid_grant stays the reconnect case: AuthError refresh_rejected, connection reauth_required", async () => {
    fake.expireAccessTokens();
    fake.revokeRefreshTokens();
    const { client: c } = client();
    const err = await c.request(listEmployees).catch((e: unknown) => e);
    expect((err as AuthError).details.reason).toBe("refresh_rejected");
    expect(await store.getMeta(teamId)).toMatchObject({ status: "reauth_required", reauthReason: "refresh_rejected" });
  });
});

describe("429 waits what freee says", () => {
  it("HR: waits until X-RateLimit-Reset (plus a 250 ms margin); the window has reset and the call succeeds", async () => {
    fake.setRateLimit("hr", { limit: 1, windowSeconds: 7 });
    const { client: c, sleeps } = client();
    expect((await c.request(listEmployees)).ok).toBe(true);
    expect((await c.request(listEmployees)).ok).toBe(true);
    expect(sleeps).toEqual([7250]);
    expect(fake.apiRequests().map((r) => r.status)).toEqual([200, 429, 200]);
  });

  it("accounting: waits until meta.reset of the body (an ISO time with +09:00)", async () => {
    fake.fail({ path: "/api/1/deals" }, { status: 429, body: { status_code: 429, meta: { limit: 10, period: 1, remaining: 0, reset: jstIso(new Date(time.now + 3000)) } } });
    const { client: c, sleeps } = client();
    expect((await c.request(listDeals)).ok).toBe(true);
    expect(sleeps).toEqual([3250]);
  });

  it("a reset beyond the Lambda's remaining time → RateLimitedError at once, carrying the wait", async () => {
    fake.setRateLimit("hr", { limit: 1, windowSeconds: 20 });
    const { client: c, sleeps } = client({ remainingTimeMs: () => 15_000 });
    await c.request(listEmployees);
    const err = await c.request(listEmployees).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).name).toBe("RateLimitedError");
    expect((err as RateLimitedError).retryAfterSeconds).toBe(21);
    expect((err as RateLimitedError).details).toMatchObject({ giveUp: "wait_over_remaining_time", remainingMs: 15_000, resetSource: "x-ratelimit-reset" });
    expect(sleeps).toEqual([]);
  });

  it("the same wait is taken when the Lambda has time for it", async () => {
    fake.setRateLimit("hr", { limit: 1, windowSeconds: 20 });
    const { client: c, sleeps } = client({ remainingTimeMs: () => 50_000 });
    await c.request(listEmployees);
    expect((await c.request(listEmployees)).ok).toBe(true);
    expect(sleeps).toEqual([20_250]);
  });

  it("HR's hourly window (10,000 an hour, reset in 40 minutes) is not waited for: RateLimitedError with the wait", async () => {
    fake.setRateLimit("hr", { limit: 1, windowSeconds: 2400 });
    const { client: c, sleeps } = client();
    await c.request(listEmployees);
    const err = await c.request(listEmployees).catch((e: unknown) => e);
    expect((err as RateLimitedError).retryAfterSeconds).toBe(2401);
    expect((err as RateLimitedError).details).toMatchObject({ giveUp: "wait_over_cap", limit: 1, remaining: 0 });
    expect(sleeps).toEqual([]);
  });

  it("a 429 without any reset falls back to backoff 1 s, 2 s, 4 s, then RateLimitedError", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 429, body: { status_code: 429, errors: [{ type: "too_many_requests", messages: ["リクエスト回数の上限を超えました。"] }] } }, 4);
    const { client: c, sleeps } = client();
    const err = await c.request(listEmployees).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).details).toMatchObject({ giveUp: "retries", retries: 3 });
    expect(sleeps).toEqual([1000, 2000, 4000]);
  });
});
