import { TOOL_CATALOGUE } from "../lib/model/prompts/tool-catalogue.generated";
import { estimateTokens } from "../lib/model/prompt-cache";
import type { LayerCache } from "./pipeline";
import type { TokenUsage } from "./prices";

/**
 * L3's plan for 327 operations: the catalogue (one line per operation: method, path, freee's summary, read or
 * write) rides in its cached system prefix; an operation's fields reach the model only with its validation issue.
 * What the bench reports of it: how many operations the catalogue lists, its share of the prefix, and the task's
 * L3 tokens — input paid, read from the prompt cache, written to it — with the share of the prompt the cache served.
 */
export interface L3Catalogue {
  operations: number;
  catalogueTokensEstimate: number;
  prefixTokensEstimate: number;
  breakpoint: boolean;
  perTask: TokenUsage & { cacheHitRatio: number };
}

export function l3Catalogue(cache: LayerCache, usage: TokenUsage): L3Catalogue {
  const prompt = usage.inputTokens + usage.cacheReadInputTokens + usage.cacheCreationInputTokens;
  return {
    operations: (TOOL_CATALOGUE.match(/^(GET|POST|PUT|PATCH|DELETE) \//gm) ?? []).length,
    catalogueTokensEstimate: estimateTokens(TOOL_CATALOGUE),
    prefixTokensEstimate: cache.prefixTokensEstimate,
    breakpoint: cache.breakpoint,
    perTask: { ...usage, cacheHitRatio: prompt === 0 ? 0 : Math.round((usage.cacheReadInputTokens / prompt) * 1000) / 1000 },
  };
}
