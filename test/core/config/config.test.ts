import { describe, expect, it } from "vitest";
import { intEnv, listEnv, requireEnv } from "../../../lib/core/config/env";
import { DEFAULT_LIMITS, loadLimits } from "../../../lib/core/config/limits";
import { resolveSecret } from "../../../lib/core/config/secrets";
import { FatalConfigError } from "../../../lib/core/errors/taxonomy";

describe("settings fail loudly (FatalConfigError at cold start)", () => {
  it("a missing or blank required setting is FatalConfigError, never an empty string", () => {
    expect(() => requireEnv("TABLE_NAME", {})).toThrow(FatalConfigError);
    expect(() => requireEnv("TABLE_NAME", { TABLE_NAME: "  " })).toThrow(FatalConfigError);
    expect(requireEnv("TABLE_NAME", { TABLE_NAME: "t" })).toBe("t");
  });

  it("limits default to docs/architecture.md (limits) and can be overridden", () => {
    expect(loadLimits({})).toEqual({ pollIntervalSeconds: 3, runTimeoutSeconds: 360, maxRegenerations: 5, maxReruns: 3, approvalTimeoutSeconds: 604800,
      warnChangePercent: 20, warnChangeYen: 1_000_000 });
    expect(loadLimits({ WARN_CHANGE_PERCENT: "10" }).warnChangePercent).toBe(10);
    expect(loadLimits({ MAX_RERUNS: "1" }).maxReruns).toBe(1);
    expect(DEFAULT_LIMITS.runTimeoutSeconds).toBe(360);
  });

  it("a malformed number is refused, not guessed", () => {
    expect(() => intEnv("MAX_RERUNS", 3, { MAX_RERUNS: "three" })).toThrow(FatalConfigError);
    expect(() => intEnv("MAX_RERUNS", 3, { MAX_RERUNS: "-1" })).toThrow(FatalConfigError);
  });

  it("lists are comma separated", () => {
    expect(listEnv("ADMIN_USER_IDS", { ADMIN_USER_IDS: "U1, U2,," })).toEqual(["U1", "U2"]);
  });

  it("a secret comes from the environment, or fails naming the setting (not the value)", async () => {
    await expect(resolveSecret("SLACK_SIGNING_SECRET", { SLACK_SIGNING_SECRET: "abc" })).resolves.toBe("abc");
    const err = await resolveSecret("SLACK_SIGNING_SECRET", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FatalConfigError);
    expect((err as Error).message).toContain("SLACK_SIGNING_SECRET_SECRET_ARN");
  });
});
