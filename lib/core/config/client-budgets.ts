/**
 * How long one call to each AWS / Slack dependency may take, at most: per-attempt timeout × attempts. The clients
 * are built from these numbers, and the stack derives every Lambda's timeout from them (infra/lambda-budgets.ts),
 * so a function is never killed by its own timeout while a call it is allowed to make is still within budget.
 */
export interface CallBudget {
  /** Per attempt: connection + request. */
  timeoutMs: number;
  attempts: number;
  /** Longest wait between attempts. */
  backoffMs: number;
}

/** DynamoDB (document client): SDK retries kept small, Step Functions owns the retry policy (docs/architecture.md, shape on AWS). */
export const DYNAMODB_CALL: CallBudget = { timeoutMs: 2_000, attempts: 2, backoffMs: 200 };
/** Step Functions (StartExecution, SendTaskSuccess). */
export const SFN_CALL: CallBudget = { timeoutMs: 3_000, attempts: 2, backoffMs: 200 };
/** Slack Web API (@slack/web-api retryConfig: 1 retry, 100–300 ms apart). */
export const SLACK_CALL: CallBudget = { timeoutMs: 2_500, attempts: 2, backoffMs: 300 };
/** Secrets Manager / KMS on a cold start (Powertools parameters, token cipher). */
export const AWS_CONTROL_CALL: CallBudget = { timeoutMs: 3_000, attempts: 3, backoffMs: 500 };

/** The longest one call may take, every attempt timing out. */
export function worstCallMs(call: CallBudget): number {
  return call.timeoutMs * call.attempts + call.backoffMs * (call.attempts - 1);
}
