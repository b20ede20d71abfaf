import { classifyAwsError } from "../core/errors/classify";

/** True when a DynamoDB write was refused by its condition: the caller then reads what is there. */
export function isConditionFailure(err: unknown): boolean {
  return err instanceof Error && (err.name === "ConditionalCheckFailedException" || err.name === "TransactionCanceledException");
}

/** Translate a DynamoDB error into the taxonomy (throttling → ThrottledError, missing table → FatalConfigError). */
export function translateDynamoError(err: unknown, where: string): Error {
  return classifyAwsError(err, where) ?? (err instanceof Error ? err : new Error(String(err)));
}
