import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  bearerFromAuthorizationHeader,
  executionRefOf,
  issueMcpBearer,
  loadMcpBearerSecret,
  verifyMcpBearer,
} from "../../../lib/mcp/bearer";
import { AuthError, FatalConfigError } from "../../../lib/core/errors/taxonomy";

const SECRET = "test-mcp-bearer-secret-0123456789abcdef";
const NOW = new Date("2026-11-30T08:00:00Z");
const claims = { teamId: "T0001", executionId: "task-1-e1", ttlSeconds: 600, now: NOW };

function rejection(fn: () => unknown): { name: string; reason: unknown; message: string } {
  try {
    fn();
  } catch (err) {
    const e = err as AuthError;
    return { name: e.name, reason: e.details.reason, message: e.message };
  }
  throw new Error("expected a rejection");
}

describe("MCP bearer (workspace + execution, HMAC, expiring)", () => {
  it("round-trips team, execution and expiry", () => {
    const token = issueMcpBearer(claims, SECRET);
    expect(token).toMatch(/^mcp1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(verifyMcpBearer(token, SECRET, { now: NOW, expectedExecutionId: "task-1-e1" })).toEqual({
      teamId: "T0001",
      executionId: "task-1-e1",
      expiresAt: NOW.getTime() / 1000 + 600,
    });
  });

  it("refuses a tampered payload (another workspace) and a tampered signature", () => {
    const token = issueMcpBearer(claims, SECRET);
    const [v, , sig] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ t: "T9999", e: "task-1-e1", exp: 9_999_999_999 })).toString("base64url");
    expect(rejection(() => verifyMcpBearer(`${v}.${forged}.${sig}`, SECRET, { now: NOW }))).toMatchObject({
      name: "AuthError",
      reason: "bad_signature",
    });
    const flipped = token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA");
    expect(rejection(() => verifyMcpBearer(flipped, SECRET, { now: NOW })).reason).toBe("bad_signature");
  });

  it("refuses a token signed with another secret", () => {
    const token = issueMcpBearer(claims, "another-secret-that-is-long-enough-0000");
    expect(rejection(() => verifyMcpBearer(token, SECRET, { now: NOW })).reason).toBe("bad_signature");
  });

  it("refuses an expired token (at and after exp)", () => {
    const token = issueMcpBearer(claims, SECRET);
    expect(rejection(() => verifyMcpBearer(token, SECRET, { now: new Date(NOW.getTime() + 600_000) })).reason).toBe("expired");
    expect(verifyMcpBearer(token, SECRET, { now: new Date(NOW.getTime() + 599_000) }).teamId).toBe("T0001");
  });

  it("refuses a token of another execution", () => {
    const token = issueMcpBearer(claims, SECRET);
    expect(rejection(() => verifyMcpBearer(token, SECRET, { now: NOW, expectedExecutionId: "task-1-e2" })).reason).toBe(
      "wrong_execution",
    );
  });

  it("refuses malformed tokens without echoing them", () => {
    for (const bad of ["", "abc", "mcp1..x", "mcp2.a.b", "mcp1.a.b.c"]) {
      expect(rejection(() => verifyMcpBearer(bad, SECRET, { now: NOW })).reason).toBe("malformed");
    }
    // Correctly signed but not our claims: still a refusal, not a crash.
    const payload = Buffer.from("not json").toString("base64url");
    const sig = createHmac("sha256", SECRET).update(`mcp1.${payload}`).digest("base64url");
    expect(rejection(() => verifyMcpBearer(`mcp1.${payload}.${sig}`, SECRET, { now: NOW })).reason).toBe("malformed");
    const token = issueMcpBearer(claims, SECRET);
    const r = rejection(() => verifyMcpBearer(token, "x".repeat(40), { now: NOW }));
    expect(r.message).not.toContain(token);
  });

  it("needs a strong secret (FatalConfigError), from env or Secrets Manager", async () => {
    expect(() => issueMcpBearer(claims, "short")).toThrow(FatalConfigError);
    await expect(loadMcpBearerSecret({})).rejects.toBeInstanceOf(FatalConfigError);
    await expect(loadMcpBearerSecret({ MCP_BEARER_SECRET: "short" })).rejects.toBeInstanceOf(FatalConfigError);
    await expect(loadMcpBearerSecret({ MCP_BEARER_SECRET: SECRET })).resolves.toBe(SECRET);
  });

  it("reads the token from an Authorization header", () => {
    expect(bearerFromAuthorizationHeader("Bearer abc.def")).toBe("abc.def");
    expect(bearerFromAuthorizationHeader("bearer   x ")).toBe("x");
    expect(bearerFromAuthorizationHeader("Basic abc")).toBeUndefined();
    expect(bearerFromAuthorizationHeader(undefined)).toBeUndefined();
  });

  it("points at the Execution item (taskId + executionNo from executionIdFor)", () => {
    expect(executionRefOf({ executionId: "T1-C1-1700000000_000100-e12" })).toEqual({ taskId: "T1-C1-1700000000_000100", executionNo: 12 });
    expect(() => executionRefOf({ executionId: "no-number" })).toThrow(AuthError);
  });
});
