/**
 * Secret redaction shared by the logger, the audit log and anything shown to users. Two nets: keys whose
 * name says "secret", and values that look like a credential whatever key holds them.
 */

export const REDACTED = "[REDACTED]";

const SECRET_KEY = /(^|[_-])(token|secret|password|passwd|authorization|cookie|api[_-]?key|client[_-]?secret|refresh[_-]?token|access[_-]?token|bearer|signature|private[_-]?key|code[_-]?verifier)s?$/i;
const SECRET_KEY_CAMEL = /(Token|Secret|Password|Authorization|ApiKey|Signature|Cookie)s?$/;
/** Keys that end like a secret but only hold references or counts. */
const SAFE_KEYS = new Set(["tokenUsage", "inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens", "maxTokens", "max_tokens", "taskTokenPresent"]);

const SECRET_VALUE_PATTERNS: RegExp[] = [
  /xox[abposre]-[0-9A-Za-z-]{8,}/g, // Slack tokens
  /xapp-[0-9A-Za-z-]{8,}/g,
  /sk-ant-[0-9A-Za-z_-]{8,}/g, // Anthropic keys
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\bv0=[0-9a-f]{64}\b/g, // Slack request signatures
  /\bAAAA[A-Za-z0-9+/=]{100,}/g, // Step Functions task tokens
];

export function isSecretKey(key: string): boolean {
  if (SAFE_KEYS.has(key)) return false;
  return SECRET_KEY.test(key) || SECRET_KEY_CAMEL.test(key);
}

export function redactString(value: string): string {
  let out = value;
  for (const pattern of SECRET_VALUE_PATTERNS) out = out.replace(pattern, REDACTED);
  return out;
}

/** Deep copy with secrets replaced. Cycles are cut, not followed. */
export function redact<T>(value: T, seen = new WeakSet<object>()): T {
  if (typeof value === "string") return redactString(value) as T;
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return "[Circular]" as T;
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redact(v, seen)) as T;
  if (value instanceof Error) {
    return { name: value.name, message: redactString(value.message) } as T;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretKey(k) && v !== undefined && v !== null && typeof v !== "boolean" ? REDACTED : redact(v, seen);
  }
  return out as T;
}

/** A JSON.stringify replacer for Powertools Logger (`jsonReplacerFn`). */
export function redactingJsonReplacer(key: string, value: unknown): unknown {
  if (key !== "" && isSecretKey(key) && value !== undefined && value !== null && typeof value !== "boolean") {
    return REDACTED;
  }
  if (typeof value === "string") return redactString(value);
  if (typeof value === "bigint") return value.toString();
  return value;
}
