/**
 * Secret redaction shared by the logger, the audit log, thrown errors and anything shown to users. Values under
 * a key that names a secret are replaced (isSecretKey), and every string is cleaned by redactString (registered
 * values, credential formats, `key=value` text). Errors keep name, message, stack, their `cause` chain and their
 * own fields (SDK errors: `$metadata`, `$response`, `headers`, `data`), all redacted the same way.
 */
import { REDACTED, redactString } from "./redact-text";
import { isSecretKey } from "./secret-keys";

export { REDACTED, redactString } from "./redact-text";
export { isSecretKey } from "./secret-keys";
export { registerSecret } from "./secret-registry";

const MAX_DEPTH = 12;

/** Deep copy with secrets replaced. Cycles are cut, not followed; the input is never changed. */
export function redact<T>(value: T): T {
  return walk(value, new WeakSet<object>(), 0, false) as T;
}

function walk(value: unknown, seen: WeakSet<object>, depth: number, underSecretKey: boolean): unknown {
  if (typeof value === "string") return underSecretKey ? REDACTED : redactString(value);
  if (typeof value === "bigint") return value.toString();
  if (value === null || typeof value !== "object") return typeof value === "function" || typeof value === "symbol" ? undefined : value;
  if (seen.has(value)) return "[Circular]";
  if (depth >= MAX_DEPTH) return "[Truncated]";
  const special = describeSpecial(value);
  if (special !== undefined) return typeof special === "string" ? special : walk(special, seen, depth + 1, underSecretKey);
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => walk(v, seen, depth + 1, underSecretKey));
    const out: Record<string, unknown> = {};
    for (const [k, v] of entriesOf(value)) {
      const copied = walk(v, seen, depth + 1, underSecretKey || isSecretKey(k));
      if (copied !== undefined) out[k] = copied;
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/** Own enumerable fields, plus an Error's name / message / stack / cause (not enumerable). */
function entriesOf(value: object): [string, unknown][] {
  const entries = Object.entries(value);
  if (!(value instanceof Error)) return entries;
  const own = entries.filter(([k]) => !["name", "message", "stack", "cause"].includes(k));
  const cause = (value as { cause?: unknown }).cause;
  return [
    ["name", value.name],
    ["message", value.message],
    ...(value.stack === undefined ? [] : [["stack", value.stack] as [string, unknown]]),
    ...(cause === undefined ? [] : [["cause", cause] as [string, unknown]]),
    ...own,
  ];
}

/**
 * Objects whose JSON form would hide or explode their content: bytes are decoded (a form body in a Buffer is
 * still a form body), Headers / Maps / URLSearchParams become plain entries, streams and sockets are named only.
 */
function describeSpecial(value: object): unknown {
  if (value instanceof Uint8Array) return `[${value.byteLength} bytes] ${Buffer.from(value.buffer, value.byteOffset, Math.min(value.byteLength, 4096)).toString("utf8")}`;
  if (value instanceof ArrayBuffer) return `[${value.byteLength} bytes]`;
  // What JSON.stringify hands a replacer for a Buffer (its toJSON runs first).
  const asJson = value as { type?: unknown; data?: unknown };
  if (asJson.type === "Buffer" && Array.isArray(asJson.data) && Object.keys(value).length === 2) {
    return describeSpecial(Buffer.from((asJson.data as number[]).slice(0, 4096)));
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  if (value instanceof URL) return value.toString();
  if (value instanceof URLSearchParams || value instanceof Map || isHeaders(value)) {
    return Object.fromEntries((value as { entries(): Iterable<[unknown, unknown]> }).entries());
  }
  if (value instanceof Set) return [...value];
  if (typeof (value as { pipe?: unknown }).pipe === "function" || typeof (value as { getReader?: unknown }).getReader === "function") return "[Stream]";
  return undefined;
}

function isHeaders(value: object): boolean {
  return typeof Headers !== "undefined" && value instanceof Headers;
}

/**
 * A JSON.stringify replacer for Powertools Logger (`jsonReplacerFn`): the same rules as redact(), applied to
 * each value on its way out. Powertools formats Error values itself afterwards (name, message, stack, cause,
 * own fields): those fields pass through here again, one by one.
 */
export function redactingJsonReplacer(key: string, value: unknown): unknown {
  if (key !== "" && isSecretKey(key)) return secretValue(value);
  if (typeof value === "string") return redactString(value);
  if (typeof value === "bigint") return value.toString();
  if (value !== null && typeof value === "object" && !(value instanceof Error)) {
    const special = describeSpecial(value);
    if (special !== undefined) return redact(special);
  }
  return value;
}

/** Under a secret key: strings go, counts and flags stay (`inputTokens: 1234`, `taskTokenPresent: true`). */
function secretValue(value: unknown): unknown {
  if (value === null || value === undefined || typeof value === "boolean" || typeof value === "number") return value;
  if (typeof value === "object") return walk(value, new WeakSet<object>(), 0, true);
  return REDACTED;
}

/**
 * Clean a thrown error in place before it leaves a Lambda: its message and stack end up in the invocation log
 * and, through a Catch's `Cause`, in the Step Functions history. Name and class stay (ErrorEquals matches them).
 */
export function redactThrown<E>(err: E): E {
  if (!(err instanceof Error)) return err;
  const message = redactString(err.message);
  if (message !== err.message) err.message = message;
  if (typeof err.stack === "string") {
    const stack = redactString(err.stack);
    if (stack !== err.stack) err.stack = stack;
  }
  return err;
}
