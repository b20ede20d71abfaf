import { createAnthropicClientFromEnv } from "./anthropic-client";
import { loadLayerSettings } from "../lib/model/settings";
import { AnthropicLayers, type LayerRunners } from "../lib/steps/anthropic-layers";
import type { Wiring } from "./base-deps";

/** L1–L3 on Anthropic Messages: the TaskPipeline's generation steps, each with the layers it runs. */
export function withLayers(w: Wiring, runners: LayerRunners): Wiring {
  const layers = new AnthropicLayers(() => createAnthropicClientFromEnv("layers", w.env), loadLayerSettings(w.env), runners, { metrics: w.deps.metrics });
  return { ...w, deps: { ...w.deps, layers } };
}
