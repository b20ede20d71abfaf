import { expect, it } from "vitest";
import { fromFunctionUrlEvent, toFetchHandler } from "../../lib/ingress/http/types";
import { verifySlackSignature } from "../../lib/ingress/http/verify";
import { signature, TEST_SIGNING_SECRET } from "../support/slack-signing";

it("base64 bodies are decoded as UTF-8 (Japanese intact); cookies go back into the headers", () => {
  const body = JSON.stringify({ text: "日本語のテキスト" });
  const req = fromFunctionUrlEvent({
    rawPath: "/slack/events",
    headers: { "Content-Type": "application/json" },
    cookies: ["a=1", "b=2"],
    body: Buffer.from(body, "utf8").toString("base64"),
    isBase64Encoded: true,
    requestContext: { http: { method: "post" } },
  });
  expect(req.body).toBe(body);
  expect(req.method).toBe("POST");
  expect(req.headers["content-type"]).toBe("application/json");
  expect(req.headers.cookie).toBe("a=1; b=2");
});

it("the signature window is ±5 minutes, inclusive", () => {
  const now = 1_800_000_000;
  const check = (ts: number) =>
    verifySlackSignature("x", { "x-slack-signature": signature("x", ts), "x-slack-request-timestamp": String(ts) }, TEST_SIGNING_SECRET, now);
  expect(check(now - 300).ok).toBe(true);
  expect(check(now + 300).ok).toBe(true);
  expect(check(now - 301)).toEqual({ ok: false, reason: "stale_or_future" });
  expect(check(now + 301)).toEqual({ ok: false, reason: "stale_or_future" });
  expect(verifySlackSignature("x", { "x-slack-signature": "v0=abc", "x-slack-request-timestamp": "1e9" }, TEST_SIGNING_SECRET, now).ok).toBe(false);
});

it("the core also serves Fetch API requests (local dev server)", async () => {
  const handler = toFetchHandler(async (req) => ({ statusCode: 201, headers: { "x-path": req.path }, cookies: ["c=1"], body: req.body }));
  const res = await handler(new Request("http://localhost/slack/events?x=1", { method: "POST", body: "こんにちは" }));
  expect(res.status).toBe(201);
  expect(res.headers.get("x-path")).toBe("/slack/events");
  expect(res.headers.getSetCookie()).toEqual(["c=1"]);
  expect(await res.text()).toBe("こんにちは");
});
