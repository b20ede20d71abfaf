import type { Logger as PowertoolsLogger } from "@aws-lambda-powertools/logger";
import { LogLevel, type Logger as SlackLogger } from "@slack/bolt";

/**
 * Bolt's and @slack/oauth's logger interface over our Powertools logger, so their lines are structured JSON
 * and pass through the same secret redaction as every other log line.
 */
export function slackLogger(log: PowertoolsLogger, name = "slack"): SlackLogger {
  let level: LogLevel = LogLevel.WARN;
  const order = [LogLevel.DEBUG, LogLevel.INFO, LogLevel.WARN, LogLevel.ERROR];
  const enabled = (l: LogLevel) => order.indexOf(l) >= order.indexOf(level);
  const emit = (l: LogLevel, fn: "debug" | "info" | "warn" | "error", msg: unknown[]) => {
    if (!enabled(l)) return;
    const [first, ...rest] = msg;
    const text = first instanceof Error ? `${first.name}: ${first.message}` : String(first);
    const extra = [...(first instanceof Error ? [first] : []), ...rest].map((m) => (m instanceof Error ? { name: m.name, message: m.message, code: (m as { code?: unknown }).code } : m));
    log[fn](`${name}: ${text}`, ...(extra.length > 0 ? [{ details: extra }] : []));
  };
  return {
    debug: (...msg: unknown[]) => emit(LogLevel.DEBUG, "debug", msg),
    info: (...msg: unknown[]) => emit(LogLevel.INFO, "info", msg),
    warn: (...msg: unknown[]) => emit(LogLevel.WARN, "warn", msg),
    error: (...msg: unknown[]) => emit(LogLevel.ERROR, "error", msg),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: (n: string) => {
      name = n;
    },
  };
}
