import type { CallBudget } from "./client-budgets";

/**
 * The AWS SDK clients' request handler settings for one call budget. `throwOnRequestTimeout` matters: without it
 * the SDK's `requestTimeout` only logs a warning and the call keeps waiting, so a hung DynamoDB, Step Functions,
 * KMS or Secrets Manager call would outlive the Lambda timeout derived from this budget (infra/lambda-budgets.ts).
 */
export function boundedRequestHandler(budget: CallBudget) {
  return { requestTimeout: budget.timeoutMs, connectionTimeout: 1_000, throwOnRequestTimeout: true };
}
