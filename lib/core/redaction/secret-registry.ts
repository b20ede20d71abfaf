/**
 * The secret values this process holds, so the redactor can remove them wherever they turn up, whatever their
 * format (freee's opaque tokens match no pattern). The same idea as a CI system's masked values: each place
 * that obtains a secret (Secrets Manager, a decrypted token, an issued bearer, a task token) registers it.
 * Bounded: the oldest values are forgotten first (a warm ingress meets many workspaces' bot tokens).
 */

const MAX_SECRETS = 2000;
/** Shorter values would redact ordinary words; no credential of this app is this short. */
export const MIN_SECRET_LENGTH = 8;

const secrets = new Map<string, true>();
let sortedCache: string[] | undefined;

/** Remember a secret value (and the spellings it takes in URLs and JSON). Non-strings and short values are ignored. */
export function registerSecret(value: unknown): void {
  if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH) return;
  for (const form of spellings(value)) {
    secrets.delete(form);
    secrets.set(form, true);
  }
  while (secrets.size > MAX_SECRETS) secrets.delete(secrets.keys().next().value as string);
  sortedCache = undefined;
}

/** Registered values, longest first (a secret that contains another is replaced whole). */
export function registeredSecrets(): readonly string[] {
  sortedCache ??= [...secrets.keys()].sort((a, b) => b.length - a.length);
  return sortedCache;
}

/** Tests only: start from an empty registry. */
export function forgetRegisteredSecrets(): void {
  secrets.clear();
  sortedCache = undefined;
}

function spellings(value: string): string[] {
  const forms = new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]);
  // application/x-www-form-urlencoded writes a space as "+".
  forms.add(new URLSearchParams({ v: value }).toString().slice(2));
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH);
}
