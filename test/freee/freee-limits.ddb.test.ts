import { describe, expect, it } from "vitest";
import { AuthError, FreeeThrottledError, RateLimitedError } from "../../lib/core/errors/taxonomy";
import type { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { classifyFreeeResponse, FREEE_THROTTLE_MS } from "../../lib/freee/freee-response";
import { forbiddenBody, THROTTLE_MESSAGE } from "../../dev/fakes/freee/errors";
import type { FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { useFreeeWorkspace, VirtualClock } from "../support/freee-workspace";
import { makeClient } from "./helpers";

/**
 * freee's limits as its schemas' info.description states them, against the strict freee fake over 127.0.0.1 and a
 * real DynamoDB, on a virtual clock (the client's sleep moves the clock the fake reads):
 * - invoice counts 30 a minute, 1,500 an hour and a day's plan quota, each with its own X-Ratelimit-*-Minute /
 *   X-RateLimit-* / X-RateLimit-*-Day headers (invoice.openapi.yml): a spent minute waits for the minute;
 * - 「一定期間に過度のアクセスを検知した場合…403…10分程度」 (all schemas): a 403 throttle is a rate limit, not a
 *   permission refusal, and past what the Lambda can wait it is FreeeThrottledError with the time to retry.
 */

let fake: FakeFreee;
let store: FreeeConnectionStore;
let teamId: string;
// Each test's fake reads the virtual clock, which starts at a whole second of the real one.
const time = new VirtualClock();
useFreeeWorkspace({ teamPrefix: "TL", fake: time.fakeOptions }, (w) => ({ fake, store, teamId } = w));
const client = (extra: Parameters<typeof makeClient>[3] = {}) => time.client({ store, fake, teamId }, extra);

const listInvoices = { method: "GET", path: "/iv/invoices", query: { company_id: 101 } } as const;
const listEmployees = { method: "GET", path: "/hr/api/v1/employees", query: { company_id: 101, year: 2026, month: 1 } } as const;
const listDeals = { method: "GET", path: "/api/1/deals", query: { company_id: 101 } } as const;

describe("invoice: the minute and the day windows", () => {
  it("a spent minute (30 a minute) waits for the minute's reset, not the hour's, and the call then succeeds", async () => {
    fake.setRateLimit("invoice", { limit: 1500, windowSeconds: 3600, perMinute: 2, perDay: 3000 });
    const { client: c, sleeps } = client();
    for (let i = 0; i < 3; i++) expect((await c.request(listInvoices)).ok).toBe(true);
    // The third found the minute spent: one wait of 60 s (plus the 250 ms margin), within the 60 s cap + margin.
    expect(sleeps).toEqual([60_250]);
    expect(fake.apiRequests().map((r) => r.status)).toEqual([200, 200, 429, 200]);
  });

  it("every invoice answer reports the three windows, spelt as the schema spells them", async () => {
    const { client: c } = client();
    await c.request(listInvoices);
    const answered = await fetch(`${fake.url}/iv/invoices?company_id=101`, { headers: { authorization: "Bearer none" } });
    for (const h of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Ratelimit-Limit-Minute", "X-Ratelimit-Remaining-Minute", "X-Ratelimit-Reset-Minute", "X-RateLimit-Limit-Day", "X-RateLimit-Remaining-Day", "X-RateLimit-Reset-Day"]) {
      expect(answered.headers.get(h), h).not.toBeNull();
    }
    expect(answered.headers.get("x-ratelimit-reset-minute")).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000000Z$/);
  });

  it("a spent day is not waited for: RateLimitedError at once, retry after the day's reset", async () => {
    fake.setRateLimit("invoice", { limit: 1500, windowSeconds: 3600, perMinute: 30, perDay: 1 });
    const { client: c, sleeps } = client();
    await c.request(listInvoices);
    const err = await c.request(listInvoices).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).not.toBeInstanceOf(FreeeThrottledError);
    expect((err as RateLimitedError).retryAfterSeconds).toBe(86_401);
    expect((err as RateLimitedError).details).toMatchObject({ giveUp: "wait_over_cap", resetSource: "x-ratelimit-reset-day", limit: 1, remaining: 0 });
    expect(sleeps).toEqual([]);
  });

  it("a minute's wait longer than the Lambda has left is not started", async () => {
    fake.setRateLimit("invoice", { limit: 1500, windowSeconds: 3600, perMinute: 1 });
    const { client: c, sleeps } = client({ remainingTimeMs: () => 40_000 });
    await c.request(listInvoices);
    const err = await c.request(listInvoices).catch((e: unknown) => e);
    expect((err as RateLimitedError).details).toMatchObject({ giveUp: "wait_over_remaining_time", resetSource: "x-ratelimit-reset-minute", remainingMs: 40_000 });
    expect((err as RateLimitedError).retryAfterSeconds).toBe(61);
    expect(sleeps).toEqual([]);
  });

  it("with no window saying which ran out, the latest reset is waited for (as before)", () => {
    const headers = new Headers({ "X-RateLimit-Reset": new Date(5_000).toISOString(), "X-Ratelimit-Reset-Minute": new Date(2_000).toISOString() });
    expect(classifyFreeeResponse(429, headers, null, 0)).toMatchObject({ kind: "rate_limited", waitMs: 5_000, source: "x-ratelimit-reset" });
  });
});

describe("freee's 403 throttle", () => {
  it("is a rate limit: FreeeThrottledError (a RateLimitedError), retry in ten minutes; no token refresh, no AuthError", async () => {
    const { client: c, sleeps } = client();
    fake.throttle();
    const err = await c.request(listEmployees).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FreeeThrottledError);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).not.toBeInstanceOf(AuthError);
    expect((err as FreeeThrottledError).name).toBe("FreeeThrottledError");
    expect((err as FreeeThrottledError).retryAfterSeconds).toBe(601);
    expect((err as FreeeThrottledError).details).toMatchObject({ status: 403, giveUp: "wait_over_cap", resetSource: "freee-403-throttle", resetAt: new Date(time.now + FREEE_THROTTLE_MS).toISOString() });
    expect(sleeps).toEqual([]);
    expect(fake.refreshCalls).toBe(0);
    expect(fake.apiRequests().map((r) => r.status)).toEqual([403]);
  });

  it("accounting's 403 body shape is recognised the same way", async () => {
    const { client: c } = client();
    fake.throttle();
    expect(await c.request(listDeals).catch((e: unknown) => e)).toBeInstanceOf(FreeeThrottledError);
  });

  it("a run that can afford the pause waits it out and the call succeeds once freee lifts the throttle", async () => {
    const { client: c, sleeps } = client({ maxRetryAfterSeconds: 900, remainingTimeMs: () => 900_000 });
    fake.throttle();
    expect((await c.request(listEmployees)).ok).toBe(true);
    expect(sleeps).toEqual([FREEE_THROTTLE_MS + 250]);
    expect(fake.apiRequests().map((r) => r.status)).toEqual([403, 200]);
  });

  it("a permission 403 stays a refusal the agent reads (権限不足), not a rate limit", async () => {
    fake.fail({ path: "/hr/api/v1/employees" }, { status: 403, body: forbiddenBody("hr") });
    const { client: c } = client();
    const result = await c.request(listEmployees);
    expect(result).toMatchObject({ ok: false, status: 403, kind: "forbidden" });
  });

  it("a 403 with a permission code is never read as the throttle, whatever its words", () => {
    const body = { code: "user_do_not_have_permission", message: THROTTLE_MESSAGE };
    expect(classifyFreeeResponse(403, new Headers(), body, 0)).toMatchObject({ kind: "refused", refusal: "forbidden" });
  });
});
