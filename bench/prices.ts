/**
 * Every price the bench's cost model uses, in one place (docs/bench.md names them): public list prices in USD,
 * region us-east-1, no free tier, no discount. Change them here only.
 */
export const PRICES = {
  region: "us-east-1",
  /** AWS Step Functions, Standard workflows: per state transition ($0.025 per 1,000). */
  stepFunctionsPerTransition: 0.025 / 1000,
  /** AWS Lambda on arm64 (the stack's architecture): per GB-second (first tier) and per request ($0.20 per million). */
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerRequest: 0.2 / 1e6,
  /** DynamoDB on-demand, Standard table class: per write / read request unit ($0.625 / $0.125 per million). */
  dynamoPerWriteUnit: 0.625 / 1e6,
  dynamoPerReadUnit: 0.125 / 1e6,
  /** Anthropic API, per million tokens: input, output, 5-minute cache write, cache read. */
  models: {
    "claude-haiku-4-5": { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
    "claude-sonnet-4-6": { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  } as Record<string, ModelPrice>,
} as const;

export interface ModelPrice {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
}

/** The list price of one model's usage; a model without a price here is an error, not $0. */
export function modelCostUsd(model: string, usage: TokenUsage): number {
  const price = PRICES.models[model];
  if (price === undefined) throw new Error(`bench: no price for model ${model} in bench/prices.ts`);
  return (
    (usage.inputTokens * price.input + usage.outputTokens * price.output + usage.cacheCreationInputTokens * price.cacheWrite + usage.cacheReadInputTokens * price.cacheRead) / 1e6
  );
}
