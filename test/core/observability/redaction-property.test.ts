import Anthropic from "@anthropic-ai/sdk";
import { DynamoDBServiceException } from "@aws-sdk/client-dynamodb";
import { SFNServiceException } from "@aws-sdk/client-sfn";
import { WebAPIPlatformError, WebAPIRequestError } from "@slack/web-api";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AuditLog } from "../../../lib/store/audit-log";
import type { AuditEntry } from "../../../lib/core/domain/records";
import { classifyError } from "../../../lib/core/errors/classify";
import { AuthError, UpstreamServerError } from "../../../lib/core/errors/taxonomy";
import { createLogger, logLayerError } from "../../../lib/core/observability/logger";
import { redact, registerSecret } from "../../../lib/core/redaction/redact";
import { forgetRegisteredSecrets } from "../../../lib/core/redaction/secret-registry";
import { errorFromCatch } from "../../../lib/steps/common";
import { defineStep } from "../../../lib/steps/step-handler";
import type { PipelineDeps } from "../../../lib/steps/ports";
import { SECRET_KEYS, SECRET_KINDS, type SecretKind } from "./secret-kinds";
import { seedsFor } from "../../support/seeds";

/** The fast-check seeds CI replays (fast-check names the seed and path of a failure; `npm run fuzz` explores). */
const SEEDS = seedsFor([20261202]);

/**
 * Issue 15 item 4: a generated secret of every kind, carried every way a secret reaches a log line, an audit
 * entry or a thrown error, never shows in what comes out. Two situations: the process knows the value (it
 * loaded, decrypted, issued or received it — every such place registers it), and it does not (a value handed
 * over from elsewhere): then the recognisable formats must still go, and opaque ones wherever a key names them.
 */

function capture() {
  const chunks: string[] = [];
  const push = (chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    return true;
  };
  const out = vi.spyOn(process.stdout, "write").mockImplementation(push);
  const err = vi.spyOn(process.stderr, "write").mockImplementation(push);
  return { text: () => chunks.join(""), restore: () => (out.mockRestore(), err.mockRestore()) };
}

/** What a carrier puts in front of the secret: `named` carriers say what it is, free text does not. */
interface Carrier {
  name: string;
  named: boolean;
  /** Sends the secret down one logging path; returns anything that path produced besides stdout/stderr. */
  run(secret: string): Promise<unknown>;
}

const log = createLogger("redaction-property");
const formBody = (s: string) => `grant_type=refresh_token&refresh_token=${encodeURIComponent(s)}&client_id=123&client_secret=${encodeURIComponent(s)}`;

function awsError(s: string) {
  const err = new DynamoDBServiceException({ name: "ValidationException", $fault: "client", $metadata: { httpStatusCode: 400, requestId: "R1" }, message: `Invalid Authorization: Bearer ${s}` });
  Object.assign(err, { $response: { statusCode: 400, headers: { "x-amzn-requestid": "R1", authorization: `AWS4 ${s}` }, body: `{"message":"bad","token":"${s}"}` } });
  return err;
}

function anthropicError(s: string) {
  const headers = new Headers({ "request-id": "req_1", "x-api-key": s });
  return Anthropic.APIError.generate(500, { type: "error", error: { type: "api_error", message: `upstream said: credential=${s}` } }, undefined, headers);
}

function slackPlatformError(s: string) {
  return new WebAPIPlatformError({ ok: false, error: "invalid_auth", response_metadata: { messages: [`token_value: ${s}`] }, token: s } as never);
}

function slackRequestError(s: string) {
  // What axios leaves on the error Slack wraps: the request, with its Authorization header and form body.
  const original = Object.assign(new Error("socket hang up"), { config: { headers: { Authorization: `Bearer ${s}` }, data: `token=${s}&channel=C1` }, code: "ECONNRESET" });
  return new WebAPIRequestError(original);
}

const CARRIERS: Carrier[] = [
  { name: "logger message text", named: false, run: async (s) => log.info(`calling freee with ${s} failed`) },
  { name: "logger field under a secret key", named: true, run: async (s) => log.info("x", Object.fromEntries(SECRET_KEYS.map((k) => [k, s]))) },
  { name: "logger nested secret key object", named: true, run: async (s) => log.info("x", { auth: { credentials: { value: s, list: [s] } } }) },
  { name: "logger Authorization header text", named: true, run: async (s) => log.warn("x", { request: `POST /mcp\nAuthorization: Bearer ${s}\nx-api-key: ${s}` }) },
  { name: "logger form body", named: true, run: async (s) => log.info("x", { body: formBody(s) }) },
  { name: "logger form body in a Buffer", named: true, run: async (s) => log.info("x", { body: Buffer.from(formBody(s)) }) },
  { name: "logger JSON string", named: true, run: async (s) => log.info("x", { response: JSON.stringify({ access_token: s, token_type: "bearer", expires_in: 21600 }) }) },
  { name: "logger JSON string inside JSON", named: true, run: async (s) => log.info("x", { wrapped: JSON.stringify({ body: JSON.stringify({ refresh_token: s }) }) }) },
  { name: "logger URL query", named: true, run: async (s) => log.info("x", { url: `https://example.test/cb?code=abc&client_secret=${encodeURIComponent(s)}&state=x` }) },
  { name: "logger Headers / Map / URLSearchParams", named: true, run: async (s) => log.info("x", { h: new Headers({ authorization: `Bearer ${s}` }), m: new Map([["client_secret", s]]), q: new URLSearchParams({ refresh_token: s }) }) },
  { name: "logger error message (free text)", named: false, run: async (s) => log.error("failed", { error: new Error(`token endpoint answered for ${s}`) }) },
  {
    name: "logger error with a form body and a cause chain",
    named: true,
    run: async (s) => {
      const root = Object.assign(new Error("bad request"), { body: formBody(s) });
      const mid = new Error(`refresh_token=${s} refused`, { cause: root });
      log.error("refresh failed", { error: new AuthError("freee refused the grant", { service: "freee", cause: mid, details: { credential: s } }) });
    },
  },
  { name: "logLayerError with an AWS SDK ServiceException", named: true, run: async (s) => logLayerError(log, "L1", awsError(s)) },
  { name: "logLayerError with an SFN SDK error", named: false, run: async (s) => logLayerError(log, "L4", new SFNServiceException({ name: "InvalidToken", $fault: "client", $metadata: {}, message: `Invalid token ${s}` })) },
  { name: "logger Anthropic APIError with headers", named: true, run: async (s) => log.error("x", { error: anthropicError(s) }) },
  { name: "logger Slack WebAPIPlatformError with data", named: true, run: async (s) => log.error("x", { error: slackPlatformError(s) }) },
  { name: "logger Slack WebAPIRequestError wrapping the request", named: true, run: async (s) => log.error("x", slackRequestError(s)) },
  { name: "classifyError of SDK errors, then logged", named: true, run: async (s) => [awsError(s), anthropicError(s), slackRequestError(s)].forEach((e) => logLayerError(log, "L2", classifyError(e, "call"))) },
  { name: "AppError message (free text)", named: false, run: async (s) => ({ message: new UpstreamServerError(`freee said: ${s}`).message }) },
  {
    name: "audit details and error",
    named: true,
    run: async (s) => {
      const stored: AuditEntry[] = [];
      const audit = new AuditLog({ appendAudit: async (e: AuditEntry) => (stored.push(e), { record: e, applied: true }) }, log);
      await audit.record({ teamId: "T1", taskId: "t1", action: "freee.connected", subject: "x", actor: "U1", details: { tokens: { access: s }, credential: s, body: formBody(s), json: JSON.stringify({ access_token: s }) } });
      await audit.recordError({ teamId: "T1", taskId: "t1", layer: "L4", subject: "y", actor: "system", error: new AuthError(`refused: client_secret=${s}`, { service: "freee", cause: awsError(s), details: { token_value: s } }) });
      await audit.recordError({ teamId: "T1", layer: "ingress", subject: "z", actor: "system", error: new Error(`plain error about Bearer ${s}`, { cause: slackPlatformError(s) }) });
      return stored;
    },
  },
  {
    name: "a step Lambda that throws (message and stack reach the Catch Cause)",
    named: false,
    run: async (s) => {
      const step = defineStep({ service: "t", needs: {}, wire: () => Promise.reject(new Error("given by withDeps")), schema: z.object({}), run: async () => { throw new Error(`unexpected reply containing ${s}`); } });
      const deps = { metrics: { retry: () => {} } } as unknown as PipelineDeps;
      const thrown = await step.withDeps(deps)({}).then(() => undefined, (e: unknown) => e as Error);
      return { message: thrown?.message, stack: thrown?.stack, name: thrown?.name };
    },
  },
  {
    name: "a Catch Cause read back by the failure path",
    named: false,
    run: async (s) => {
      const envelope = JSON.stringify({ errorType: "Error", errorMessage: `boom ${s}`, trace: [`Error: boom ${s}`] });
      return { message: errorFromCatch({ Error: "Error", Cause: envelope }).message };
    },
  },
  { name: "redact() deep copy", named: true, run: async (s) => redact({ a: [{ credential: s }], b: `Authorization: Bearer ${s}`, c: new Error(`rejected token_value=${s}`, { cause: { token_value: s, body: formBody(s) } }) }) },
];

/** The secret or its distinctive tail (a half-redacted value is still a leak). */
function leaks(text: string, secret: string): boolean {
  return text.includes(secret) || text.includes(secret.slice(-16)) || text.includes(encodeURIComponent(secret));
}

async function leakedBy(carrier: Carrier, secret: string): Promise<string | undefined> {
  const out = capture();
  let produced: unknown;
  try {
    produced = await carrier.run(secret);
  } finally {
    out.restore();
  }
  const text = out.text() + JSON.stringify(produced ?? null);
  return leaks(text, secret) ? text : undefined;
}

describe("redaction holds for every secret kind on every logging path", () => {
  beforeEach(() => {
    process.env.LOG_LEVEL = "DEBUG";
    forgetRegisteredSecrets();
  });
  afterEach(() => {
    forgetRegisteredSecrets();
    vi.restoreAllMocks();
  });

  const byKind = (kinds: SecretKind[]) => fc.oneof(...kinds.map((k) => k.arb.map((secret) => ({ kind: k.kind, secret }))));

  it.each(SEEDS)("a secret the process registered (loaded, decrypted, issued or received) never comes out (seed %i)", async (seed) => {
    await fc.assert(
      fc.asyncProperty(byKind(SECRET_KINDS), fc.constantFrom(...CARRIERS), async ({ secret }, carrier) => {
        forgetRegisteredSecrets();
        registerSecret(secret);
        expect(await leakedBy(carrier, secret)).toBeUndefined();
      }),
      { numRuns: 400, seed },
    );
  });

  it.each(SEEDS)("unregistered: recognisable formats never come out, whatever carries them (seed %i)", async (seed) => {
    await fc.assert(
      fc.asyncProperty(byKind(SECRET_KINDS.filter((k) => k.recognisable)), fc.constantFrom(...CARRIERS), async ({ secret }, carrier) => {
        expect(await leakedBy(carrier, secret)).toBeUndefined();
      }),
      { numRuns: 300, seed },
    );
  });

  it.each(SEEDS)("unregistered: opaque secrets never come out where a key, a header or a field names them (seed %i)", async (seed) => {
    await fc.assert(
      fc.asyncProperty(byKind(SECRET_KINDS.filter((k) => !k.recognisable)), fc.constantFrom(...CARRIERS.filter((c) => c.named)), async ({ secret }, carrier) => {
        expect(await leakedBy(carrier, secret)).toBeUndefined();
      }),
      { numRuns: 300, seed },
    );
  });

  it("every kind and every carrier is exercised (the generators are not vacuous)", () => {
    // fc.oneof / constantFrom pick uniformly: at these run counts each of the ${SECRET_KINDS.length} kinds and
    // ${CARRIERS.length} carriers comes up many times; this pins that the lists are what the brief names.
    expect(SECRET_KINDS.map((k) => k.kind)).toEqual(expect.arrayContaining(["slack bot token", "slack user token", "slack signing secret", "anthropic api key", "freee access token", "freee refresh token", "freee client secret", "MCP bearer", "step functions task token"]));
    expect(CARRIERS.length).toBeGreaterThanOrEqual(20);
  });
});
