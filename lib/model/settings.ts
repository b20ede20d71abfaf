import type Anthropic from "@anthropic-ai/sdk";
import { intEnv, optionalEnv, type Env } from "../core/config/env";
import { FatalConfigError } from "../core/errors/taxonomy";
import { modelTraits } from "./models";

export type LayerName = "L1" | "L2" | "L3";
export type Effort = NonNullable<NonNullable<Anthropic.MessageCreateParams["output_config"]>["effort"]>;

export interface LayerSettings {
  model: Anthropic.Model;
  maxTokens: number;
  /** Omitted from the request when undefined (the model's default). Only ever set for a model that accepts it. */
  effort: Effort | undefined;
  /** Per-request timeout; overrides the client's. */
  timeoutMs: number;
}

export type LayersSettings = Record<LayerName, LayerSettings>;

const EFFORTS: readonly Effort[] = ["low", "medium", "high", "xhigh", "max"];

/**
 * Defaults. L1 only reads a short message: the fast model. L2/L3 plan: the strong model.
 * `claude-sonnet-4-5` is not used: the SDK lists it as deprecated (end of life 2026-11-30).
 * Haiku 4.5 does not take `effort`, so L1 sends none. A default effort is dropped for a model that takes none.
 */
export const LAYER_DEFAULTS: LayersSettings = {
  L1: { model: "claude-haiku-4-5", maxTokens: 2048, effort: undefined, timeoutMs: 60_000 },
  L2: { model: "claude-sonnet-4-6", maxTokens: 4096, effort: "medium", timeoutMs: 120_000 },
  L3: { model: "claude-sonnet-4-6", maxTokens: 8192, effort: "medium", timeoutMs: 120_000 },
};

/**
 * Reads `<LAYER>_MODEL`, `<LAYER>_MAX_TOKENS`, `<LAYER>_EFFORT` (`none` omits it) and `<LAYER>_TIMEOUT_MS`
 * for L1, L2, L3. An invalid value is a FatalConfigError at cold start, and so is an effort the model does not
 * accept (lib/model/models.ts): the API would answer every task's request with a 400.
 */
export function loadLayerSettings(env: Env = process.env): LayersSettings {
  return {
    L1: layerFromEnv("L1", env),
    L2: layerFromEnv("L2", env),
    L3: layerFromEnv("L3", env),
  };
}

function layerFromEnv(layer: LayerName, env: Env): LayerSettings {
  const defaults = LAYER_DEFAULTS[layer];
  const maxTokens = intEnv(`${layer}_MAX_TOKENS`, defaults.maxTokens, env);
  const timeoutMs = intEnv(`${layer}_TIMEOUT_MS`, defaults.timeoutMs, env);
  for (const [name, value] of [[`${layer}_MAX_TOKENS`, maxTokens], [`${layer}_TIMEOUT_MS`, timeoutMs]] as const) {
    if (value === 0) throw new FatalConfigError(`setting ${name} must be positive`, { details: { setting: name } });
  }
  const model = optionalEnv(`${layer}_MODEL`, env) ?? defaults.model;
  return { model, maxTokens, effort: effortFor(layer, model, env), timeoutMs };
}

function effortFor(layer: LayerName, model: string, env: Env): Effort | undefined {
  const name = `${layer}_EFFORT`;
  const accepted = modelTraits(model)?.efforts ?? [];
  const explicit = optionalEnv(name, env) !== undefined;
  const effort = effortFromEnv(name, LAYER_DEFAULTS[layer].effort, env);
  if (effort === undefined || accepted.includes(effort)) return effort;
  // The default is the layer's wish, not a requirement: a model without that effort runs at its own default.
  if (!explicit) return undefined;
  const known = modelTraits(model) !== undefined;
  throw new FatalConfigError(
    known
      ? `setting ${name}=${effort} is not accepted by ${model} (accepted: ${accepted.length === 0 ? "none, the model takes no effort" : accepted.join(", ")})`
      : `setting ${name}=${effort}: ${model} is not a model this app knows to accept effort (lib/model/models.ts); set ${name}=none`,
    { details: { setting: name } },
  );
}

function effortFromEnv(name: string, fallback: Effort | undefined, env: Env): Effort | undefined {
  const raw = optionalEnv(name, env);
  if (raw === undefined) return fallback;
  if (raw === "none") return undefined;
  const effort = EFFORTS.find((e) => e === raw);
  if (effort === undefined) {
    throw new FatalConfigError(`setting ${name} must be one of none, ${EFFORTS.join(", ")}; got "${raw}"`, {
      details: { setting: name },
    });
  }
  return effort;
}
