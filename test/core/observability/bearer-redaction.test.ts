import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redact, redactString, REDACTED } from "../../../lib/core/redaction/redact";
import { seedsFor } from "../../support/seeds";

/** The fast-check seeds CI replays (`npm run fuzz` explores others). */
const SEEDS = seedsFor([20261202, 27]);

/**
 * A bearer credential in every form it reaches a log line, an audit entry or the agent (freee echoes headers in
 * its error text): any letters (a token of letters only is still a token), either case of the scheme, a header
 * line, a form field, JSON and escaped JSON. And the other side: a stack line of `token-*.ts` keeps its line
 * and column, which an operator needs to find the fault.
 */

const credential = fc.oneof(
  fc.stringMatching(/^[A-Za-z]{6,40}$/),
  fc.stringMatching(/^[A-Za-z0-9._~+/-]{6,60}$/).filter((s) => /[A-Za-z]/.test(s)),
);
const scheme = fc.constantFrom("Bearer", "bearer", "BEARER", "Basic", "basic");
const forms: Array<(scheme: string, token: string) => string> = [
  (s, t) => `Authorization: ${s} ${t}`,
  (s, t) => `authorization: ${s} ${t}\r\nx-request-id: R1`,
  (s, t) => `request failed (Authorization=${s} ${t}; retry later)`,
  (s, t) => JSON.stringify({ headers: { authorization: `${s} ${t}` }, status: 401 }),
  (s, t) => JSON.stringify({ Authorization: `${s} ${t}` }),
  (s, t) => JSON.stringify(JSON.stringify({ authorization: `${s} ${t}` })),
  (s, t) => `Invalid Authorization header: '${s} ${t}'`,
  (s, t) => `X-Authorization:${s} ${t}`,
];

describe("bearer credentials are redacted in every form", () => {
  it.each(SEEDS)("a credential after a scheme under an authorization key never survives (seed %i)", (seed) => {
    fc.assert(
      fc.property(scheme, credential, fc.constantFrom(...forms), (s, token, form) => {
        const out = redactString(form(s, token));
        expect(out).not.toContain(token);
        expect(out).toContain(REDACTED);
      }),
      { numRuns: 500, seed },
    );
  });

  it("a free-standing bearer value goes when it cannot be a word; a sentence about bearers stays", () => {
    expect(redactString("sent Bearer abcdefghijklmnopqrstuvwx to freee")).not.toContain("abcdefghijklmnopqrstuvwx");
    expect(redactString("sent Bearer abc.def-123 to freee")).not.toContain("abc.def-123");
    expect(redactString("the bearer rejected the request")).toBe("the bearer rejected the request");
    expect(redactString("Authorization: Bearer [REDACTED] (already clean)")).toBe(`Authorization: ${REDACTED} (already clean)`);
  });

  it("redact() cleans a header object and an error message the same way", () => {
    const token = "onlyletterstokenvalue";
    const out = JSON.stringify(redact({ req: { headers: { authorization: `Bearer ${token}` } }, err: new Error(`401 for Authorization: bearer ${token}`) }));
    expect(out).not.toContain(token);
  });
});

describe("stack lines keep their line numbers", () => {
  const files = fc.constantFrom("token-manager.ts", "token-refresher.ts", "token-cipher.ts", "token-endpoint.js", "tokens.mjs", "secret-registry.ts", "mcp-bearer.cjs");
  it.each(SEEDS)("`token-*.ts:line:column` in a stack is not redacted (seed %i)", (seed) => {
    fc.assert(
      fc.property(files, fc.integer({ min: 1, max: 9_999 }), fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }), (file, line, column) => {
        const at = `${file}:${line}${column === undefined ? "" : `:${column}`}`;
        const stack = `TransientError: x\n    at FreeeTokenManager.persist (/var/task/lib/freee/${at})\n    at file:///var/task/lib/freee/${at}`;
        expect(redactString(stack)).toBe(stack);
      }),
      { numRuns: 300, seed },
    );
  });

  it("a value after a token-named key that is no line number is still redacted", () => {
    expect(redactString("token-manager.ts:abcdef123")).not.toContain("abcdef123");
    expect(redactString("refresh_token: 12ab34cd56")).not.toContain("12ab34cd56");
  });
});
