import { Logger } from "@aws-lambda-powertools/logger";
import { redactingJsonReplacer } from "./redact";
import type { Layer } from "../domain/records";

/**
 * One structured JSON logger for every function (Powertools). Secrets are redacted by the JSON replacer, so a
 * token passed by mistake in any field or message never reaches CloudWatch. Japanese stays UTF-8.
 */
export function createLogger(serviceName: string): Logger {
  return new Logger({
    serviceName,
    logLevel: (process.env.LOG_LEVEL as "DEBUG" | "INFO" | "WARN" | "ERROR" | "SILENT" | undefined) ?? "INFO",
    jsonReplacerFn: redactingJsonReplacer,
  });
}

export const logger = createLogger(process.env.POWERTOOLS_SERVICE_NAME ?? "slack-mcp-agent");

/** Seed §10.1's error line: layer, error_type, error_message and context. */
export function logLayerError(log: Logger, layer: Layer, error: unknown, context: Record<string, unknown> = {}): void {
  const err = error instanceof Error ? error : new Error(String(error));
  log.error(`${layer} failed: ${err.name}`, {
    layer,
    error_type: err.name,
    error_message: err.message,
    ...context,
    error: err,
  });
}
