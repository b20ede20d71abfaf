import type { Logger } from "@aws-lambda-powertools/logger";
import type { App } from "@slack/bolt";
import { AppError, TransientError } from "../core/errors/taxonomy";
import { markTransientFailure } from "./request-scope";

/**
 * Transient failures (StartExecution throttled, DynamoDB unreachable) answer 500 so Slack redelivers;
 * everything else is logged and acknowledged (a redelivery could not succeed either).
 */
export function routeErrors(app: App, log: Logger): void {
  app.error(async (error) => {
    const original = unwrap(error);
    if (original instanceof TransientError) {
      markTransientFailure();
      throw original;
    }
    log.warn("Slack request not processed", {
      layer: "ingress",
      error_type: original instanceof Error ? original.name : "unknown",
      error_message: original instanceof Error ? original.message : String(original),
    });
  });
}

/** Bolt wraps listener errors (UnknownError.original, MultipleListenerError.originals). */
export function unwrap(error: unknown): unknown {
  let current = error as { original?: unknown; originals?: unknown[] } | undefined;
  for (let i = 0; i < 3 && current !== undefined; i++) {
    if (current instanceof AppError) return current;
    if (Array.isArray(current.originals)) {
      const transient = current.originals.map(unwrap).find((e) => e instanceof TransientError);
      return transient ?? current.originals[0];
    }
    if (current.original === undefined) break;
    current = current.original as typeof current;
  }
  return current;
}
