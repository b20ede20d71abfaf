import { describe, expect, it } from "vitest";
import { faultReply } from "../../dev/chaos/faults";
import type { ProxiedRequest } from "../../dev/chaos/fault-proxy";
import { classifyFreeeResponse, FREEE_THROTTLE_MS } from "../../lib/freee/freee-response";

function request(path: string): ProxiedRequest {
  return { dependency: "freee", consumer: "mcp", method: "GET", path, headers: {}, body: "", phases: [] };
}

describe("the chaos matrix's freee throttle answers as freee's contract says", () => {
  for (const path of ["/api/1/deals", "/hr/api/v1/employees", "/iv/invoices"]) {
    it(`${path}: the client reads a reset a second ahead, so it waits instead of guessing`, () => {
      const reply = faultReply("freee", "throttle", request(path));
      // Read after the reply: its reset is a second after the moment it was made, whatever the machine's load.
      const now = Date.now();
      const outcome = classifyFreeeResponse(reply.status, new Headers(reply.headers), reply.body, now);
      expect(outcome.kind).toBe("rate_limited");
      if (outcome.kind !== "rate_limited") return;
      expect(outcome.waitMs).toBeGreaterThan(0);
      expect(outcome.waitMs).toBeLessThanOrEqual(1000);
      expect(outcome.remaining).toBe(0);
    });
  }
});

describe("the chaos matrix's freee 403 throttle answers as the strict fake and freee's schemas say", () => {
  for (const path of ["/api/1/deals", "/hr/api/v1/employees", "/iv/invoices"]) {
    it(`${path}: a 403 the client reads as freee's ten-minute throttle, not as a missing permission`, () => {
      const now = Date.now();
      const reply = faultReply("freee", "throttle-403", request(path));
      expect(reply.status).toBe(403);
      const outcome = classifyFreeeResponse(reply.status, new Headers(reply.headers), reply.body, now);
      expect(outcome).toMatchObject({ kind: "rate_limited", status: 403, source: "freee-403-throttle", waitMs: FREEE_THROTTLE_MS });
    });
  }

  it("is freee's alone", () => {
    expect(() => faultReply("Slack", "throttle-403", { ...request("/chat.postMessage"), dependency: "Slack" })).toThrow(/freee's alone/);
  });
});
