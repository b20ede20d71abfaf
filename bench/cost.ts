import { DEFAULT_LIMITS } from "../lib/core/config/limits";
import { DEFAULT_MEMORY_SIZE_MB } from "../infra/constructs/app-function";
import type { PipelineResult } from "./pipeline";
import { modelCostUsd, PRICES } from "./prices";

/**
 * The modelled cost of the bench's runs at the list prices of bench/prices.ts: Step Functions transitions, Lambda
 * requests and GB-seconds (the measured durations of this machine × each function's memory), DynamoDB on-demand
 * request units, and the model's tokens. What it leaves out is listed in docs/bench.md.
 */
export interface AwsCost {
  stepFunctions: number;
  lambdaRequests: number;
  lambdaCompute: number;
  dynamoReads: number;
  dynamoWrites: number;
  total: number;
}

export interface CostResult {
  region: string;
  /** One happy-path task: both state machines, every step Lambda, the three ingress calls, their DynamoDB. */
  perTaskUsd: number;
  /** One agent run of runTimeoutSeconds: its poll loop (Wait → PollSession → Choice) every pollIntervalSeconds. */
  perRunUsd: number;
  /** The same task's model tokens (L1–L3 and L4). */
  modelUsd: number;
  perTask: AwsCost;
  perPoll: AwsCost;
  run: { seconds: number; pollIntervalSeconds: number; polls: number };
  modelByLayer: Record<string, { model: string; usd: number }>;
  memoryMb: number;
}

const round6 = (usd: number) => Math.round(usd * 1e8) / 1e8;

function awsCost(counts: { transitions: number; invocations: number; lambdaMs: number; readUnits: number; writeUnits: number }, memoryMb: number): AwsCost {
  const parts = {
    stepFunctions: counts.transitions * PRICES.stepFunctionsPerTransition,
    lambdaRequests: counts.invocations * PRICES.lambdaPerRequest,
    lambdaCompute: (counts.lambdaMs / 1000) * (memoryMb / 1024) * PRICES.lambdaArmPerGbSecond,
    dynamoReads: counts.readUnits * PRICES.dynamoPerReadUnit,
    dynamoWrites: counts.writeUnits * PRICES.dynamoPerWriteUnit,
  };
  const total = Object.values(parts).reduce((a, b) => a + b, 0);
  return Object.fromEntries(Object.entries({ ...parts, total }).map(([k, v]) => [k, round6(v)])) as unknown as AwsCost;
}

export function modelCost(pipeline: PipelineResult, limits = DEFAULT_LIMITS, memoryMb = DEFAULT_MEMORY_SIZE_MB): CostResult {
  const t = pipeline.perTask;
  const p = pipeline.perPoll;
  const perTask = awsCost({ transitions: t.stateTransitions, invocations: t.lambdaInvocations, lambdaMs: t.lambdaMs, readUnits: t.dynamoReadUnits, writeUnits: t.dynamoWriteUnits }, memoryMb);
  const perPoll = awsCost({ transitions: p.stateTransitions, invocations: p.lambdaInvocations, lambdaMs: p.lambdaMs, readUnits: p.dynamoReadUnits, writeUnits: p.dynamoWriteUnits }, memoryMb);
  const polls = Math.floor(limits.runTimeoutSeconds / limits.pollIntervalSeconds);
  const modelByLayer = Object.fromEntries(Object.entries(t.usageByLayer).map(([layer, u]) => [layer, { model: u.model, usd: round6(modelCostUsd(u.model, u)) }]));
  return {
    region: PRICES.region,
    perTaskUsd: perTask.total,
    perRunUsd: round6(polls * perPoll.total),
    modelUsd: round6(Object.values(modelByLayer).reduce((a, b) => a + b.usd, 0)),
    perTask,
    perPoll,
    run: { seconds: limits.runTimeoutSeconds, pollIntervalSeconds: limits.pollIntervalSeconds, polls },
    modelByLayer,
    memoryMb,
  };
}
