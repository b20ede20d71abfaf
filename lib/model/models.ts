/**
 * What this app relies on about each model L1–L3 may run on: which `output_config.effort` values it accepts and
 * the shortest prefix its prompt cache stores. A model not listed here gets no effort and no cache breakpoint
 * (settings.ts refuses an explicit effort for it): nothing is sent that the model might reject or ignore.
 *
 * Sources (2026-12): the Anthropic docs' effort page (effort on Opus 4.5+, Sonnet 4.6; `max` not on Opus 4.5;
 * `xhigh` from Opus 4.7) and prompt-caching page (minimum cacheable prompt: 4,096 tokens for Haiku 4.5 and
 * Opus 4.5/4.6, 1,024 for Sonnet 4.5 and earlier Sonnet/Opus 4). For Sonnet 4.6 the docs say 1,024, but caching
 * has been reported to start only at 2,048 and other references list 2,048:
 * the larger figure is used, so a breakpoint is only placed where it caches under either reading.
 */
export interface ModelTraits {
  efforts: readonly string[];
  minCacheableTokens: number;
}

const WITHOUT_MAX = ["low", "medium", "high"] as const;
const WITH_MAX = ["low", "medium", "high", "max"] as const;

export const MODEL_TRAITS: Readonly<Record<string, ModelTraits>> = {
  "claude-haiku-4-5": { efforts: [], minCacheableTokens: 4096 },
  "claude-sonnet-4-5": { efforts: [], minCacheableTokens: 1024 },
  "claude-sonnet-4-6": { efforts: WITH_MAX, minCacheableTokens: 2048 },
  "claude-opus-4-5": { efforts: WITHOUT_MAX, minCacheableTokens: 4096 },
  "claude-opus-4-6": { efforts: WITH_MAX, minCacheableTokens: 4096 },
  "claude-opus-4-7": { efforts: ["low", "medium", "high", "xhigh", "max"], minCacheableTokens: 2048 },
};

/** The traits of a model id or dated snapshot (`claude-haiku-4-5-20251001` is `claude-haiku-4-5`). */
export function modelTraits(model: string): ModelTraits | undefined {
  return MODEL_TRAITS[model] ?? MODEL_TRAITS[model.replace(/-\d{8}$/, "")];
}
