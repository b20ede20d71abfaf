/**
 * Does a key (object key, form field, header, `name=` in free text) name a secret? The key is split into words
 * (`access_token`, `botToken`, `x-api-key`, `CLIENT_SECRET`, `token_value` → words) and is secret when a word
 * says so — unless its last word says the value only describes one (`secretArn`, `tokenType`, `tokenUsage`,
 * `accessTokenExpiresAt`, `taskTokenPresent`).
 */

const SECRET_WORDS = new Set([
  "token",
  "tokens",
  "secret",
  "secrets",
  "password",
  "passwords",
  "passwd",
  "passphrase",
  "pwd",
  "authorization",
  "cookie",
  "cookies",
  "credential",
  "credentials",
  "bearer",
  "signature",
  "signatures",
  "sig",
  "hmac",
  "apikey",
  "privatekey",
  "verifier",
  "jwt",
  "otp",
]);
/** Two-word secrets: `api key`, `private key`. */
const SECRET_PAIRS = [
  ["api", "key"],
  ["private", "key"],
  ["signing", "key"],
  ["encryption", "key"],
];
/** A last word that makes the value a description of a secret, not the secret. */
const DESCRIPTIVE_LAST_WORDS = new Set([
  "arn",
  "id",
  "ids",
  "type",
  "types",
  "kind",
  "usage",
  "count",
  "present",
  "at",
  "expires",
  "expiry",
  "length",
  "name",
  "names",
  "version",
  "setting",
  "source",
  "ref",
  "status",
  "url",
]);

const cache = new Map<string, boolean>();

export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

export function isSecretKey(key: string): boolean {
  const known = cache.get(key);
  if (known !== undefined) return known;
  const words = keyWords(key);
  const last = words.at(-1);
  const named =
    words.some((w) => SECRET_WORDS.has(w)) ||
    SECRET_PAIRS.some(([a, b]) => words.some((w, i) => w === a && words[i + 1] === b));
  const secret = named && !(last !== undefined && DESCRIPTIVE_LAST_WORDS.has(last));
  if (cache.size < 5000) cache.set(key, secret);
  return secret;
}
