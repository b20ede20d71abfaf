import fc from "fast-check";
import { issueMcpBearer } from "../../../lib/mcp/bearer";

/**
 * Generators for every kind of secret the app handles, in the formats the issuers use. `noBias`: a real secret is
 * random, not the all-zero string fast-check would otherwise favour (shrinking still finds small examples).
 */

const chars = (alphabet: string, minLength: number, maxLength = minLength) =>
  fc.noBias(fc.string({ unit: fc.constantFrom(...alphabet.split("")), minLength, maxLength }));
const DIGITS = "0123456789";
const HEX = "0123456789abcdef";
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64URL = `${ALNUM}-_`;

export interface SecretKind {
  kind: string;
  /** Recognisable by its format alone (no registration, no key naming it). */
  recognisable: boolean;
  arb: fc.Arbitrary<string>;
}

const base64Of = (minBytes: number, maxBytes: number) =>
  fc.noBias(fc.uint8Array({ minLength: minBytes, maxLength: maxBytes })).map((bytes) => Buffer.from(bytes).toString("base64"));

export const SECRET_KINDS: SecretKind[] = [
  {
    kind: "slack bot token",
    recognisable: true,
    arb: fc.tuple(chars(DIGITS, 10, 13), chars(DIGITS, 10, 13), chars(ALNUM, 24)).map(([a, b, c]) => `xoxb-${a}-${b}-${c}`),
  },
  {
    kind: "slack user token",
    recognisable: true,
    arb: fc.tuple(chars(DIGITS, 10, 13), chars(DIGITS, 10, 13), chars(DIGITS, 10, 13), chars(HEX, 32)).map(([a, b, c, d]) => `xoxp-${a}-${b}-${c}-${d}`),
  },
  { kind: "slack rotating refresh token", recognisable: true, arb: chars(ALNUM, 60, 120).map((s) => `xoxe-1-${s}`) },
  { kind: "slack signing secret", recognisable: false, arb: chars(HEX, 32) },
  { kind: "anthropic api key", recognisable: true, arb: chars(B64URL, 93).map((s) => `sk-ant-api03-${s}AA`) },
  { kind: "freee access token", recognisable: false, arb: fc.oneof(chars(HEX, 64), chars(B64URL, 43)) },
  { kind: "freee refresh token", recognisable: false, arb: fc.oneof(chars(HEX, 64), chars(B64URL, 43)) },
  { kind: "freee client secret", recognisable: false, arb: chars(B64URL, 40, 64) },
  { kind: "generated HMAC secret", recognisable: false, arb: chars(ALNUM, 48) },
  {
    kind: "MCP bearer",
    recognisable: true,
    arb: fc
      .tuple(chars(ALNUM, 9, 11), chars(DIGITS, 1, 3), chars(ALNUM, 32, 48))
      .map(([team, n, secret]) => issueMcpBearer({ teamId: `T${team}`, executionId: `T${team}-C1-1700000000.000100-e${Number(n) + 1}`, ttlSeconds: 3600 }, secret)),
  },
  { kind: "step functions task token", recognisable: true, arb: base64Of(300, 700) },
];

/** Keys the app (or a library it calls) puts secrets under. */
export const SECRET_KEYS = ["access_token", "refresh_token", "client_secret", "credential", "token_value", "botToken", "Authorization", "x-api-key", "signingSecret", "taskToken", "password", "apiKey"];
