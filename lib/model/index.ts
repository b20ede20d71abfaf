/** L1–L3 (docs/layers.md). Handlers import from here. */
export { createAnthropicClient, ANTHROPIC_TIMEOUT_MS } from "./anthropic-client";
export { LAYER_DEFAULTS, loadLayerSettings, type Effort, type LayerName, type LayerSettings, type LayersSettings } from "./settings";
export type { LayerDeps, ModelResult } from "./call-model";
export { runL1Task, type L1Input, type L1Result } from "./l1-task";
export { runL2Prompt, type L2Input, type PromptRegeneration } from "./l2-prompt";
export { runL3Process, type L3Input, type ProcessRegeneration } from "./l3-process";
