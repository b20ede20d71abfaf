import { describe, expect, it } from "vitest";
import { ConnectionFailedError, UpstreamServerError, UpstreamTimeoutError, WriteOutcomeUnknownError } from "../../lib/core/errors/taxonomy";
import type { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { mayHaveBeenSent } from "../../lib/freee/write-policy";
import { startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { useFreeeWorkspace } from "../support/freee-workspace";
import { payRuleAt } from "../../dev/fakes/freee/state";
import { makeClient } from "./helpers";

/**
 * The client's write path: the retry rules hold for reads; a write that may have reached freee
 * is sent once and ends as WriteOutcomeUnknownError. Writes freee refused before acting (401, 429) or that never
 * left (connection refused) are still retried.
 */
let fake: FakeFreee;
let store: FreeeConnectionStore;
let teamId: string;
useFreeeWorkspace({ teamPrefix: "TW" }, (w) => ({ fake, store, teamId } = w));

const createDeal = { method: "POST", path: "/api/1/deals", body: { company_id: 101, issue_date: "2026-12-01", type: "expense", details: [{ account_item_id: 21, tax_code: 136, amount: 100 }] } } as const;
const putPay = { method: "PUT", path: "/hr/api/v1/employees/1/basic_pay_rule", body: { company_id: 101, year: 2027, month: 1, employee_basic_pay_rule: { pay_calc_type: "monthly", pay_amount: 290000 } } } as const;
const posts = () => fake.apiRequests("/api/1/deals").filter((r) => r.method === "POST");

describe("a write that may have reached freee is sent once", () => {
  it("POST answered 502 → WriteOutcomeUnknownError after one request (cause UpstreamServerError), no backoff", async () => {
    fake.fail({ method: "POST", path: "/api/1/deals" }, { status: 502 }, 4);
    const { client, sleeps } = makeClient(store, fake, teamId);
    const err = await client.request(createDeal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WriteOutcomeUnknownError);
    expect((err as Error).name).toBe("WriteOutcomeUnknownError");
    expect((err as Error).cause).toBeInstanceOf(UpstreamServerError);
    expect((err as WriteOutcomeUnknownError).details).toMatchObject({ status: 502, method: "POST" });
    expect(posts()).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("PUT whose connection drops after freee took it → WriteOutcomeUnknownError, one request", async () => {
    fake.fail({ method: "PUT", path: putPay.path }, { lostReply: true }, 4);
    const { client } = makeClient(store, fake, teamId);
    await expect(client.request(putPay)).rejects.toBeInstanceOf(WriteOutcomeUnknownError);
    expect(fake.apiRequests(putPay.path)).toHaveLength(1);
    expect(payRuleAt(fake.company(101).employees[0]!, 2027, 1)).toMatchObject({ pay_amount: 290000 });
  });

  it("POST that times out → WriteOutcomeUnknownError (cause UpstreamTimeoutError), one request", async () => {
    fake.fail({ method: "POST", path: "/api/1/deals" }, { delayMs: 600 }, 4);
    const { client } = makeClient(store, fake, teamId, { requestTimeoutMs: 150 });
    const err = await client.request(createDeal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WriteOutcomeUnknownError);
    expect((err as Error).cause).toBeInstanceOf(UpstreamTimeoutError);
    expect(posts()).toHaveLength(1);
  });

  it("a read keeps its retries: GET answered 502 twice → two backoffs, then success", async () => {
    fake.fail({ method: "GET", path: "/api/1/deals" }, { status: 502 }, 2);
    const { client, sleeps } = makeClient(store, fake, teamId);
    expect((await client.request({ method: "GET", path: "/api/1/deals", query: { company_id: 101 } })).ok).toBe(true);
    expect(sleeps).toEqual([1000, 2000]);
  });
});

describe("a write freee refused before acting, or that never left, is retried", () => {
  it("429 on a POST → waits what freee says (+ 250 ms margin) and sends again: one deal", async () => {
    fake.fail({ method: "POST", path: "/api/1/deals" }, { status: 429, headers: { "retry-after": "1" } }, 1);
    const { client, sleeps } = makeClient(store, fake, teamId);
    expect((await client.request(createDeal)).ok).toBe(true);
    // The latest of Retry-After (1 s) and the body's meta.reset (at most 1 s ahead, whole seconds).
    expect(sleeps).toEqual([1250]);
    expect(posts()).toHaveLength(2);
    expect(fake.company(101).deals.filter((d) => d.issue_date === "2026-12-01")).toHaveLength(1);
  });

  it("connection refused (nothing listening) → retried like a read, then ConnectionFailedError, not an unknown outcome", async () => {
    const closed = await startFakeFreee();
    const url = closed.url;
    await closed.stop();
    const { client, sleeps } = makeClient(store, fake, teamId, { apiBaseUrl: url });
    const err = await client.request(createDeal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionFailedError);
    expect(sleeps).toEqual([1000, 2000, 4000]);
  });

  it("mayHaveBeenSent: only errors that prove the request never left are safe", () => {
    const fetchFailed = (code: string) => new TypeError("fetch failed", { cause: Object.assign(new Error(code), { code }) });
    expect(mayHaveBeenSent(fetchFailed("ECONNREFUSED"))).toBe(false);
    expect(mayHaveBeenSent(fetchFailed("ENOTFOUND"))).toBe(false);
    expect(mayHaveBeenSent(fetchFailed("ECONNRESET"))).toBe(true);
    expect(mayHaveBeenSent(fetchFailed("UND_ERR_SOCKET"))).toBe(true);
    expect(mayHaveBeenSent(new DOMException("timed out", "TimeoutError"))).toBe(true);
    expect(mayHaveBeenSent(new Error("anything else"))).toBe(true);
  });
});
