import { Logger } from "@aws-lambda-powertools/logger";
import type { Context } from "aws-lambda";
import { redactingJsonReplacer } from "../redaction/redact";
import type { Layer } from "../domain/records";

/** The keys every line of the current invocation carries (the task id, the execution number). */
export type InvocationKeys = Record<string, string | number | undefined>;

let invocations = 0;
let current: { context: Context | undefined; keys: Record<string, string | number> } | undefined;
/** Every logger of the process: one Lambda container serves one invocation at a time, so all share its keys. */
const live = new Set<WeakRef<ProcessLogger>>();

/** A Powertools Logger whose `cold_start` is the process's (Powertools keeps one per logger instance). */
class ProcessLogger extends Logger {
  protected override getColdStart(): boolean {
    return invocations === 1 && process.env.AWS_LAMBDA_INITIALIZATION_TYPE !== "provisioned-concurrency";
  }
}

/**
 * One structured JSON logger for every function (Powertools). Secrets are redacted by the JSON replacer, so a
 * token passed by mistake in any field or message never reaches CloudWatch. Japanese stays UTF-8. It carries the
 * current invocation's Lambda context and keys (`beginInvocation`), also when it was made during the invocation.
 */
export function createLogger(serviceName: string): Logger {
  const log = new ProcessLogger({
    serviceName,
    logLevel: (process.env.LOG_LEVEL as "DEBUG" | "INFO" | "WARN" | "ERROR" | "SILENT" | undefined) ?? "INFO",
    jsonReplacerFn: redactingJsonReplacer,
  });
  if (current !== undefined) carry(log, current);
  live.add(new WeakRef(log));
  return log;
}

/**
 * The start of a Lambda invocation (the step wrapper, each handler): from now on every log line of the process
 * carries the Lambda context (request id, cold start, function) and `keys`, and nothing of the last invocation.
 */
export function beginInvocation(context: Context | undefined, keys: InvocationKeys = {}): void {
  invocations += 1;
  current = { context, keys: {} };
  for (const log of loggers()) carry(log, current);
  appendInvocationKeys(keys);
}

/** Keys learnt during the invocation (the task id once the input is parsed); undefined values are left out. */
export function appendInvocationKeys(keys: InvocationKeys): void {
  const defined = Object.fromEntries(Object.entries(keys).filter((e): e is [string, string | number] => e[1] !== undefined));
  if (current === undefined) current = { context: undefined, keys: {} };
  Object.assign(current.keys, defined);
  for (const log of loggers()) log.appendKeys(defined);
}

function carry(log: Logger, invocation: NonNullable<typeof current>): void {
  log.resetKeys();
  if (invocation.context !== undefined) log.addContext(invocation.context);
  log.appendKeys(invocation.keys);
}

function* loggers(): Generator<Logger> {
  for (const ref of live) {
    const log = ref.deref();
    if (log === undefined) live.delete(ref);
    else yield log;
  }
}

export const logger = createLogger(process.env.POWERTOOLS_SERVICE_NAME ?? "slack-mcp-agent");

/** The error log line (docs/architecture.md, error table): layer, error_type, error_message and context. */
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
