/** Request bodies as the Slack fake reads them. */

/** WebClient sends form-encoded bodies whose object values (blocks, view) are JSON strings: decode those too. */
export function parseBody(raw: string, contentType: string | null): Record<string, unknown> {
  if (raw === "") return {};
  if (contentType?.includes("application/json")) {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) out[key] = /^[[{]/.test(value) ? jsonOrString(value) : value;
  return out;
}

function jsonOrString(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch (err) {
    if (err instanceof SyntaxError) return value; // a plain string that merely starts with a bracket
    throw err;
  }
}
