import { describe, expect, it } from "vitest";
import { FatalConfigError } from "../../lib/core/errors/taxonomy";
import { LAYER_DEFAULTS, loadLayerSettings } from "../../lib/model/settings";

describe("loadLayerSettings", () => {
  it("defaults: a fast model for L1, a strong model for L2/L3", () => {
    const s = loadLayerSettings({});
    expect(s).toEqual(LAYER_DEFAULTS);
    expect(s.L1.model).toBe("claude-haiku-4-5");
    expect(s.L2.model).toBe("claude-sonnet-4-6");
    expect(s.L3.model).toBe("claude-sonnet-4-6");
    expect(s.L1.effort).toBeUndefined();
  });

  it("reads <LAYER>_MODEL, _MAX_TOKENS, _EFFORT (none omits it) and _TIMEOUT_MS", () => {
    const s = loadLayerSettings({ L1_MODEL: "claude-opus-4-6", L1_EFFORT: "low", L2_MAX_TOKENS: "3000", L2_EFFORT: "none", L3_TIMEOUT_MS: "90000" });
    expect(s.L1).toMatchObject({ model: "claude-opus-4-6", effort: "low" });
    expect(s.L2).toMatchObject({ maxTokens: 3000, effort: undefined });
    expect(s.L3).toMatchObject({ timeoutMs: 90000, model: LAYER_DEFAULTS.L3.model });
  });

  it("an invalid value fails loudly (FatalConfigError), never falls back silently", () => {
    expect(() => loadLayerSettings({ L2_EFFORT: "maximum" })).toThrow(FatalConfigError);
    expect(() => loadLayerSettings({ L1_MAX_TOKENS: "lots" })).toThrow(FatalConfigError);
    expect(() => loadLayerSettings({ L3_MAX_TOKENS: "0" })).toThrow(FatalConfigError);
  });

  it("effort only for a model that accepts it: an explicit one it rejects is a FatalConfigError at load, not a 400 per task", () => {
    expect(() => loadLayerSettings({ L1_EFFORT: "medium" })).toThrow(/L1_EFFORT=medium is not accepted by claude-haiku-4-5/);
    expect(() => loadLayerSettings({ L2_EFFORT: "xhigh" })).toThrow(/not accepted by claude-sonnet-4-6 \(accepted: low, medium, high, max\)/);
    expect(() => loadLayerSettings({ L3_MODEL: "claude-opus-4-5", L3_EFFORT: "max" })).toThrow(FatalConfigError);
    // A model this app has no traits for: an explicit effort cannot be vouched for.
    expect(() => loadLayerSettings({ L2_MODEL: "claude-future-9", L2_EFFORT: "low" })).toThrow(/claude-future-9 is not a model this app knows/);
    // The layer's default effort is dropped for a model without it, and kept for a dated snapshot that takes it.
    expect(loadLayerSettings({ L2_MODEL: "claude-haiku-4-5" }).L2.effort).toBeUndefined();
    expect(loadLayerSettings({ L2_MODEL: "claude-future-9" }).L2.effort).toBeUndefined();
    expect(loadLayerSettings({ L3_MODEL: "claude-opus-4-7-20260401", L3_EFFORT: "xhigh" }).L3.effort).toBe("xhigh");
  });
});
