import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AuthError, FatalConfigError, RateLimitedError } from "../../lib/errors/taxonomy";
import type { FreeeConnectionStore } from "../../lib/freee/connection-store";
import { FreeeTokenEndpoint } from "../../lib/freee/token-endpoint";
import { FreeeAuthMessages } from "../../lib/messages/ja";
import { startTestTable, type TestTable } from "../support/dynamo";
import { FAKE_CLIENT_ID, startFakeFreee, type FakeFreee } from "../support/fake-freee";
import { connect, makeClient, makeStore } from "./helpers";

/**
 * freee's errors as freee documents them (issue 14 item 3), against the scripted freee and a real DynamoDB.
 * Bodies and headers are freee's: a 401 carries `{ message, code }` (developer.freee.co.jp 40x checkpoint;
 * hr.openapi.json components.schemas.accessDeniedError), a 429 carries `X-RateLimit-*` headers whose reset is an
 * ISO time (both schemas' info.description) and, in accounting, `meta.reset` in the body
 * (accounting.openapi.json components.schemas.tooManyRequestsError).
 */

let table: TestTable;
let fake: FakeFreee;
let store: FreeeConnectionStore;
let team = 0;
let teamId: string;

beforeAll(async () => {
  table = await startTestTable();
});
afterAll(async () => table.close());
beforeEach(async () => {
  fake = await startFakeFreee();
  store = makeStore(table);
  teamId = `TE${++team}`;
  await connect(store, fake, teamId);
});
afterEach(async () => fake.stop());

const listEmployees = { method: "GET", path: "/hr/api/v1/employees", query: { company_id: 101, year: 2026, month: 1 } } as const;
const trialBs = { method: "GET", path: "/api/1/reports/trial_bs", query: { company_id: 101 } } as const;
const unauthorized = (code: string, message: string) => ({ status: 401, body: { message, code } });
/** An ISO time in Japan time, as accounting writes `meta.reset` ("2019-12-17T18:30:24+09:00"). */
const jst = (ms: number) => new Date(ms + 9 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, "+09:00");

describe("401 by body code", () => {
  it("expired_access_token → one refresh, then the call succeeds", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, unauthorized("expired_access_token", "アクセスする権限がありません"));
    const { client } = makeClient(store, fake, teamId);
    expect((await client.request(listEmployees)).ok).toBe(true);
    expect(fake.refreshCalls).toBe(1);
    expect((await store.getMeta(teamId))!.version).toBe(2);
  });

  it("HR's 403 accessDeniedError with code expired_access_token is an expired token too: one refresh", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 403, body: { error: "access_denied", message: "アクセスする権限がありません", code: "expired_access_token" } });
    const { client } = makeClient(store, fake, teamId);
    expect((await client.request(listEmployees)).ok).toBe(true);
    expect(fake.refreshCalls).toBe(1);
  });

  const notFixedByRefresh = [
    ["company_not_found", "存在しないかすでに削除された事業所です。"],
    ["user_do_not_have_permission", "このAPIにアクセスしたい場合、事業所の管理者にご確認ください。"],
    ["freee_plan_limit", "有料プランをご利用中の事業所のみご利用いただけます。"],
    ["source_ip_address_limit", "接続元のIPアドレスからは、サービスをご利用いただけません。"],
    ["not_available_plan_limited_app", "現在ご契約中のプランではこのプラン限定アプリを利用できません。"],
  ] as const;
  for (const [code, message] of notFixedByRefresh) {
    it(`${code} → AuthError with reason ${code}, no refresh spent, the workspace stays connected`, async () => {
      fake.fail({ path: "/hr/api/v1/employees" }, unauthorized(code, message));
      const { client } = makeClient(store, fake, teamId);
      const err = await client.request(listEmployees).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthError);
      expect((err as AuthError).details).toMatchObject({ reason: code, code, status: 401, messages: [message] });
      expect(fake.refreshCalls).toBe(0);
      expect(fake.apiRequests()).toHaveLength(1);
      expect((await store.getMeta(teamId))!).toMatchObject({ status: "active", version: 1 });
    });
  }

  it("re_authorization_required → AuthError, no refresh, and the connection is marked for reconnect (App Home offers it)", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, unauthorized("re_authorization_required", "アプリのバージョンが更新されてデータアクセス範囲が追加されています。再度認可をしてください。"));
    const { client } = makeClient(store, fake, teamId);
    const err = await client.request(listEmployees).catch((e: unknown) => e);
    expect((err as AuthError).details.reason).toBe("re_authorization_required");
    expect(fake.refreshCalls).toBe(0);
    expect(await store.getMeta(teamId)).toMatchObject({ status: "reauth_required", reauthReason: "re_authorization_required" });
  });

  it("an undocumented code → AuthError reason unrecognized (code kept), no refresh", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, unauthorized("something_new", "?"));
    const { client } = makeClient(store, fake, teamId);
    const err = await client.request(listEmployees).catch((e: unknown) => e);
    expect((err as AuthError).details).toMatchObject({ reason: "unrecognized", code: "something_new" });
    expect(fake.refreshCalls).toBe(0);
  });

  it("still expired after the refresh → AuthError token_rejected_after_refresh after exactly one refresh", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, unauthorized("expired_access_token", "アクセスする権限がありません"), 2);
    const { client } = makeClient(store, fake, teamId);
    const err = await client.request(listEmployees).catch((e: unknown) => e);
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
    fake.revokeAccessTokens();
    const { client } = makeClient(store, fake, teamId, {
      tokenEndpoint: new FreeeTokenEndpoint(fake.url, { clientId: FAKE_CLIENT_ID, clientSecret: "rotated-but-not-updated" }),
    });
    const err = await client.request(listEmployees).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FatalConfigError);
    expect((err as FatalConfigError).details).toMatchObject({ oauthError: "invalid_client", grantType: "refresh_token" });
    const meta = (await store.getMeta(teamId))!;
    expect(meta.status).toBe("active");
    expect(meta.reauthReason).toBeUndefined();
    expect(meta.refreshLeaseOwner).toBeUndefined();
    // The refresh token was not spent: with the right secret the next call refreshes and succeeds.
    const { client: fixed } = makeClient(store, fake, teamId);
    expect((await fixed.request(listEmployees)).ok).toBe(true);
  });

  it("invalid_grant stays the reconnect case: AuthError refresh_rejected, connection reauth_required", async () => {
    fake.revokeAccessTokens();
    fake.validRefreshTokens.clear();
    const { client } = makeClient(store, fake, teamId);
    const err = await client.request(listEmployees).catch((e: unknown) => e);
    expect((err as AuthError).details.reason).toBe("refresh_rejected");
    expect(await store.getMeta(teamId)).toMatchObject({ status: "reauth_required", reauthReason: "refresh_rejected" });
  });
});

describe("429 waits what freee says", () => {
  const at = (t0: number, ms: number) => new Date(t0 + ms).toISOString();

  it("HR: waits until X-RateLimit-Reset (plus a 250 ms margin), then succeeds", async () => {
    const t0 = Date.now();
    fake.fail(
      { path: "/hr/api/v1/employees" },
      { status: 429, headers: { "x-ratelimit-limit": "10000", "x-ratelimit-remaining": "0", "x-ratelimit-reset": at(t0, 7000) } },
    );
    const { client, sleeps } = makeClient(store, fake, teamId, { clock: () => new Date(t0) });
    expect((await client.request(listEmployees)).ok).toBe(true);
    expect(sleeps).toEqual([7250]);
  });

  it("accounting: waits until meta.reset of the body (an ISO time with +09:00)", async () => {
    const t0 = Math.floor(Date.now() / 1000) * 1000;
    fake.fail({ path: "/api/1/reports/trial_bs" }, { status: 429, body: { status_code: 429, meta: { limit: 10, period: 1, remaining: 0, reset: jst(t0 + 3000) } } });
    fake.fail({ path: "/api/1/reports/trial_bs" }, { status: 200, body: { trial_bs: { company_id: 101, balances: [] } } });
    const { client, sleeps } = makeClient(store, fake, teamId, { clock: () => new Date(t0) });
    expect((await client.request(trialBs)).ok).toBe(true);
    expect(sleeps).toEqual([3250]);
  });

  it("a reset beyond the Lambda's remaining time → RateLimitedError at once, carrying the wait", async () => {
    const t0 = Date.now();
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 429, headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": at(t0, 20_000) } });
    const { client, sleeps } = makeClient(store, fake, teamId, { clock: () => new Date(t0), remainingTimeMs: () => 15_000 });
    const err = await client.request(listEmployees).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).name).toBe("RateLimitedError");
    expect((err as RateLimitedError).retryAfterSeconds).toBe(21);
    expect((err as RateLimitedError).details).toMatchObject({ giveUp: "wait_over_remaining_time", remainingMs: 15_000, resetSource: "x-ratelimit-reset" });
    expect(sleeps).toEqual([]);
    expect(fake.apiRequests()).toHaveLength(1);
  });

  it("the same wait is taken when the Lambda has time for it", async () => {
    const t0 = Date.now();
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 429, headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": at(t0, 20_000) } });
    const { client, sleeps } = makeClient(store, fake, teamId, { clock: () => new Date(t0), remainingTimeMs: () => 50_000 });
    expect((await client.request(listEmployees)).ok).toBe(true);
    expect(sleeps).toEqual([20_250]);
  });

  it("HR's hourly window (reset in 40 minutes) is not waited for: RateLimitedError with the wait", async () => {
    const t0 = Date.now();
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 429, headers: { "x-ratelimit-limit": "10000", "x-ratelimit-remaining": "0", "x-ratelimit-reset": at(t0, 40 * 60_000) } });
    const { client, sleeps } = makeClient(store, fake, teamId, { clock: () => new Date(t0) });
    const err = await client.request(listEmployees).catch((e: unknown) => e);
    expect((err as RateLimitedError).retryAfterSeconds).toBe(2401);
    expect((err as RateLimitedError).details).toMatchObject({ giveUp: "wait_over_cap", limit: 10000, remaining: 0 });
    expect(sleeps).toEqual([]);
  });

  it("a 429 without any reset falls back to backoff 1 s, 2 s, 4 s, then RateLimitedError", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 429 }, 4);
    const { client, sleeps } = makeClient(store, fake, teamId);
    const err = await client.request(listEmployees).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).details).toMatchObject({ giveUp: "retries", retries: 3 });
    expect(sleeps).toEqual([1000, 2000, 4000]);
  });
});
