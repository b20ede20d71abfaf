import { modelTraits } from "./models";

/**
 * Where L1–L3 place a prompt-cache breakpoint. A prefix shorter than the model's minimum is not cached (no error,
 * both cache counters stay 0) yet a breakpoint still marks it: so one is placed only where the static prefix
 * reaches the minimum.
 *
 * There is no offline tokenizer for current Claude models, so the length is an estimate, kept on the low side so
 * that a breakpoint is never placed on a prefix that turns out too short: 1 token per 4 ASCII characters (English
 * prose runs about 3.5–4, JSON schemas shorter) and 0.75 per other character (Japanese runs about 0.8–1.2 tokens
 * per character). The real figure is in every reply's usage (input + cache creation/read tokens).
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const ch of text) {
    if (ch.charCodeAt(0) < 128) ascii += 1;
    else other += 1;
  }
  return Math.floor(ascii / 4 + other * 0.75);
}

export interface CachePlan {
  /** Estimated tokens of the static prefix (the system blocks). */
  prefixTokensEstimate: number;
  /** The model's minimum cacheable prompt; undefined for a model this app has no figure for. */
  minCacheableTokens: number | undefined;
  breakpoint: boolean;
}

export function cachePlan(model: string, staticPrefix: string): CachePlan {
  const prefixTokensEstimate = estimateTokens(staticPrefix);
  const minCacheableTokens = modelTraits(model)?.minCacheableTokens;
  return { prefixTokensEstimate, minCacheableTokens, breakpoint: minCacheableTokens !== undefined && prefixTokensEstimate >= minCacheableTokens };
}
