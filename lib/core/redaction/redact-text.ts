/** Text redaction (lib/core/redaction): imports nothing of the app, so lib/core/errors can redact every message it is given. */
import { registeredSecrets } from "./secret-registry";
import { isSecretKey } from "./secret-keys";

export const REDACTED = "[REDACTED]";

/**
 * Secrets in free text — a message, an error, a form body, a JSON string, a URL. Three nets, each enough on
 * its own for what it knows: the values this process registered (any format), the formats of the credentials
 * the app handles, and a value written after a key that names a secret (`client_secret=…`, `"access_token":"…"`,
 * `Authorization: …`, `token_value: '…'`).
 */

const FORMATS: RegExp[] = [
  /\bxox[a-z]?[.-][0-9A-Za-z.-]{6,}/g, // Slack bot / user / refresh tokens (xoxb-, xoxp-, xoxe.xoxp-, xoxe-)
  /\bxapp-[0-9A-Za-z-]{6,}/g, // Slack app-level tokens
  /\bsk-ant-[0-9A-Za-z_-]{6,}/g, // Anthropic API keys
  /\bmcp1\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}/g, // MCP bearers (lib/mcp/bearer.ts)
  /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, // JWTs
  /\b(?:Bearer|Basic)[ \t]+(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{6,}/gi, // Authorization header values (a credential is more than a word: "bearer rejected" stays)
  /\b(?:Bearer|Basic)[ \t]+[A-Za-z]{20,}(?![A-Za-z0-9])/gi, // ... or a run of letters too long for a word
  // ... or any letters where a header value stands: after a quote in any case, after `:` or `=` spelled as HTTP
  // does (a lower-case word there is prose: "plan: basic monthly", "reason: bearer missing").
  /(?<=["'`][ \t]*)(?:Bearer|Basic)[ \t]+[A-Za-z]{6,}/gi,
  /(?<=[:=][ \t]*)(?:Bearer|Basic|BEARER|BASIC)[ \t]+[A-Za-z]{6,}/g,
  /\bv0=[0-9a-f]{64}\b/g, // Slack request signatures
  /[A-Za-z0-9+/_-]{100,}={0,2}/g, // Step Functions task tokens, KMS blobs: long base64 runs
  /(?<![A-Za-z0-9])(?=[A-Za-z]*[0-9])(?=[0-9]*[A-Za-z])[A-Za-z0-9]{32,}(?![A-Za-z0-9])/g, // long random alphanumerics: Slack signing secret (32 hex), generated HMAC keys, opaque OAuth tokens
];

/**
 * `key=value`, `key: value`, `"key":"value"`, `\\"key\\":\\"value\\"`, `key='value'`. The key must name a secret
 * (isSecretKey). A quoted value runs to its closing quote; a bare one to a delimiter, so a form body keeps its
 * other fields. A bare value may already hold a [REDACTED] piece (a format matched part of it): the rest goes too.
 */
const KEYED = /([A-Za-z_][A-Za-z0-9_.-]*)(\\*["']?)(\s*[:=]\s*)(?:(\\*["'])([^"'\\\n]+)|([^\s"'&,;\\<>(){}]+))/g;
const KEEP_AFTER_KEY = /^(?:\d{1,12}|true|false|null|undefined)$/;
/** An Authorization scheme: the credential after it goes with it (`Authorization: Bearer abcdef`). */
const AUTH_SCHEME = /^(?:bearer|basic|token|digest|mac|hoba|negotiate)$/i;
const SCHEME_CREDENTIAL = /^[ \t]+[^\s"'&,;\\<>(){}]+/;
/** `token-manager.ts:12:5` in a stack: a source file's line and column, not a secret under a key. */
const SOURCE_FILE = /\.(?:[cm]?[jt]sx?|map)$/;
const LINE_COLUMN = /^\d{1,7}(?::\d{1,7})?$/;

export function redactString(value: string): string {
  if (value.length < 6) return value;
  let out = value;
  for (const secret of registeredSecrets()) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  for (const pattern of FORMATS) out = out.replace(pattern, REDACTED);
  return redactKeyed(out);
}

/** A key that names no secret consumes only itself: its quoted value may hold `credential=…` (an error body). */
function redactKeyed(text: string): string {
  let out = "";
  let from = 0;
  KEYED.lastIndex = 0;
  for (let m = KEYED.exec(text); m !== null; m = KEYED.exec(text)) {
    const [whole, key = "", q1 = "", sep = "", q2, quoted, bare] = m;
    const v = quoted ?? bare ?? "";
    const location = SOURCE_FILE.test(key) && LINE_COLUMN.test(v);
    if (!isSecretKey(key) || KEEP_AFTER_KEY.test(v) || v === REDACTED || location) {
      KEYED.lastIndex = m.index + Math.max(1, key.length);
      continue;
    }
    // A bare scheme word is only the first half of the value: its credential follows after a space.
    const credential = bare !== undefined && AUTH_SCHEME.test(bare) ? SCHEME_CREDENTIAL.exec(text.slice(m.index + whole.length))?.[0] : undefined;
    out += text.slice(from, m.index) + `${key}${q1}${sep}${q2 ?? ""}${REDACTED}`;
    from = m.index + whole.length + (credential?.length ?? 0);
    if (credential !== undefined) KEYED.lastIndex = from;
  }
  return out + text.slice(from);
}
