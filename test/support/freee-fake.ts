import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";

export interface FreeeCall {
  query?: Record<string, string | number>;
  /** A JSON body; `form` for a multipart one (the file box), `raw` for a body sent as it is, with `headers`. */
  body?: unknown;
  form?: FormData;
  raw?: string;
  headers?: Record<string, string>;
  /** Another bearer than the fake's own token; null for none. */
  token?: string | null;
}

export interface FreeeFakeUse {
  readonly fake: FakeFreee;
  /** A request to the fake as freee's clients send it: the bearer, the JSON or form body; the answer's JSON read. */
  call(method: string, path: string, options?: FreeeCall): Promise<{ status: number; headers: Headers; body: any }>;
}

/**
 * The strict freee fake for tests that speak HTTP to it directly, as vitest hooks: started for the file or for
 * each test, with a token it issued; after each test its own response-schema check must have found nothing.
 */
export function useFreeeFake(options: { each: "file" | "test"; setUp?: (fake: FakeFreee) => void } = { each: "file" }): FreeeFakeUse {
  let fake: FakeFreee | undefined;
  let token = "";
  const get = () => {
    if (fake === undefined) throw new Error("useFreeeFake: the fake did not start");
    return fake;
  };
  const start = async () => {
    fake = await startFakeFreee();
    token = fake.issueTokens().accessToken;
    options.setUp?.(fake);
  };
  const stop = async () => {
    const stopping = fake;
    fake = undefined;
    await stopping?.stop();
  };
  const check = () => expect(get().selfCheckFailures).toEqual([]);
  if (options.each === "test") {
    beforeEach(start);
    afterEach(async () => {
      try {
        check();
      } finally {
        await stop();
      }
    });
  } else {
    beforeAll(start);
    afterEach(check);
    afterAll(stop);
  }
  return {
    get fake() {
      return get();
    },
    async call(method, path, o = {}) {
      const url = new URL(get().url + path);
      for (const [k, v] of Object.entries(o.query ?? {})) url.searchParams.set(k, String(v));
      const bearer = o.token === undefined ? token : o.token;
      const json = o.body !== undefined;
      const res = await fetch(url, {
        method,
        headers: { ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }), ...(json ? { "content-type": "application/json" } : {}), ...o.headers },
        ...(json ? { body: JSON.stringify(o.body) } : o.form !== undefined ? { body: o.form } : o.raw !== undefined ? { body: o.raw } : {}),
      });
      const text = await res.text();
      const isJson = res.headers.get("content-type")?.includes("json") === true;
      return { status: res.status, headers: res.headers, body: text === "" ? undefined : isJson ? JSON.parse(text) : text };
    },
  };
}
