import { describe, expect, it } from "vitest";
import { faultReply } from "../../dev/chaos/faults";
import type { ProxiedRequest } from "../../dev/chaos/fault-proxy";
import { classifyFreeeResponse } from "../../lib/freee/freee-response";

function request(path: string): ProxiedRequest {
  return { dependency: "freee", consumer: "mcp", method: "GET", path, headers: {}, body: "", phases: [] };
}

describe("the chaos matrix's freee throttle answers as freee's contract says", () => {
  for (const path of ["/api/1/deals", "/hr/api/v1/employees", "/iv/invoices"]) {
    it(`${path}: the client reads a reset a second ahead, so it waits instead of guessing`, () => {
      const now = Date.now();
      const reply = faultReply("freee", "throttle", request(path));
      const outcome = classifyFreeeResponse(reply.status, new Headers(reply.headers), reply.body, now);
      expect(outcome.kind).toBe("rate_limited");
      if (outcome.kind !== "rate_limited") return;
      expect(outcome.waitMs).toBeGreaterThan(0);
      expect(outcome.waitMs).toBeLessThanOrEqual(1000);
      expect(outcome.remaining).toBe(0);
    });
  }
});
