import Anthropic from "@anthropic-ai/sdk";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { classifyAnthropicError, classifyAwsError, classifyError, classifyFetchFailure, classifyHttpStatus, parseRetryAfter } from "../../../lib/core/errors/classify";
import {
  AuthError,
  BadRequestError,
  ConnectionFailedError,
  FatalConfigError,
  RateLimitedError,
  RecordNotFoundError,
  StateConflictError,
  ThrottledError,
  TransientError,
  UpstreamServerError,
  UpstreamTimeoutError,
} from "../../../lib/core/errors/taxonomy";

const headers = (h: Record<string, string> = {}) => new Headers(h);
const body = (type: string) => ({ type: "error", error: { type, message: type } });

describe("classifier: Anthropic SDK errors", () => {
  it("RateLimitError → RateLimitedError (transient) with Retry-After, cause kept", () => {
    const cause = new Anthropic.RateLimitError(429, body("rate_limit_error"), "rate", headers({ "retry-after": "7" }));
    const err = classifyAnthropicError(cause);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toBeInstanceOf(TransientError);
    expect((err as RateLimitedError).retryAfterSeconds).toBe(7);
    expect(err?.cause).toBe(cause);
  });

  it("InternalServerError 500 → UpstreamServerError", () => {
    const cause = new Anthropic.InternalServerError(500, body("api_error"), "boom", headers());
    const err = classifyAnthropicError(cause);
    expect(err).toBeInstanceOf(UpstreamServerError);
    expect(err?.cause).toBe(cause);
  });

  it("529 overloaded (InternalServerError) → UpstreamServerError", () => {
    const cause = Anthropic.APIError.generate(529, body("overloaded_error"), "overloaded", headers());
    expect(cause).toBeInstanceOf(Anthropic.InternalServerError);
    const err = classifyAnthropicError(cause);
    expect(err).toBeInstanceOf(UpstreamServerError);
    expect(err?.details).toMatchObject({ status: 529 });
  });

  it("APIConnectionTimeoutError → UpstreamTimeoutError (its own retry row: 2)", () => {
    const cause = new Anthropic.APIConnectionTimeoutError();
    const err = classifyAnthropicError(cause);
    expect(err).toBeInstanceOf(UpstreamTimeoutError);
    expect(err?.name).toBe("UpstreamTimeoutError");
    expect(err?.cause).toBe(cause);
  });

  it("APIConnectionError → ConnectionFailedError", () => {
    const cause = new Anthropic.APIConnectionError({ message: "socket hang up" });
    const err = classifyAnthropicError(cause);
    expect(err).toBeInstanceOf(ConnectionFailedError);
    expect(err?.cause).toBe(cause);
  });

  it("AuthenticationError → FatalConfigError (fail loudly, check the API key)", () => {
    const cause = new Anthropic.AuthenticationError(401, body("authentication_error"), "bad key", headers());
    const err = classifyAnthropicError(cause);
    expect(err).toBeInstanceOf(FatalConfigError);
    expect(err?.cause).toBe(cause);
  });

  it("BadRequestError → BadRequestError (no retry, logged)", () => {
    const cause = new Anthropic.BadRequestError(400, body("invalid_request_error"), "bad", headers());
    const err = classifyAnthropicError(cause);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err?.name).toBe("BadRequestError");
    expect(err?.cause).toBe(cause);
  });

  it("something that is not an Anthropic error is left alone", () => {
    expect(classifyAnthropicError(new Error("x"))).toBeUndefined();
  });
});

describe("classifier: AWS SDK errors", () => {
  const awsError = (name: string, status?: number) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });

  it.each(["ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded"])("%s → ThrottledError", (name) => {
    const cause = awsError(name, 400);
    const err = classifyAwsError(cause);
    expect(err).toBeInstanceOf(ThrottledError);
    expect(err?.cause).toBe(cause);
  });

  it("ConditionalCheckFailedException → StateConflictError (UNIQUE violation: return what exists)", () => {
    const err = classifyAwsError(awsError("ConditionalCheckFailedException", 400));
    expect(err).toBeInstanceOf(StateConflictError);
  });

  it("ResourceNotFoundException (table missing) → FatalConfigError", () => {
    expect(classifyAwsError(awsError("ResourceNotFoundException", 400))).toBeInstanceOf(FatalConfigError);
  });

  it("a 5xx from AWS → UpstreamServerError", () => {
    expect(classifyAwsError(awsError("InternalServerError", 500))).toBeInstanceOf(UpstreamServerError);
  });

  it("Step Functions: a used task token → StateConflictError", () => {
    expect(classifyAwsError(awsError("TaskTimedOut", 400))).toBeInstanceOf(StateConflictError);
    expect(classifyAwsError(awsError("InvalidToken", 400))).toBeInstanceOf(StateConflictError);
  });
});

describe("classifier: HTTP statuses (freee, Slack)", () => {
  it.each([
    [401, AuthError],
    [403, AuthError],
    [404, RecordNotFoundError],
    [429, RateLimitedError],
    [500, UpstreamServerError],
    [503, UpstreamServerError],
    [408, UpstreamTimeoutError],
    [400, BadRequestError],
    [422, BadRequestError],
  ] as const)("%i → %o", (status, klass) => {
    const cause = new Error("http");
    const err = classifyHttpStatus(status, "freee", cause, status === 429 ? "2" : null);
    expect(err).toBeInstanceOf(klass);
    expect(err.cause).toBe(cause);
    expect(err.details).toMatchObject({ status });
    if (status === 429) expect((err as RateLimitedError).retryAfterSeconds).toBe(2);
  });

  it("a fetch that threw: our own deadline is the timeout row, anything else the connection row (freee, its token endpoint, Slack's file host)", async () => {
    // A server that takes the connection and never answers: only our deadline ends the request.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    const deadline = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(50) }).catch((e: unknown) => e);
    silent.closeAllConnections();
    silent.close();
    const timedOut = classifyFetchFailure(deadline, "freee GET /api/1/deals");
    expect(timedOut).toBeInstanceOf(UpstreamTimeoutError);
    expect(timedOut.message).toBe("freee GET /api/1/deals: timed out");
    expect(timedOut.cause).toBe(deadline);
    const refused = await fetch("http://127.0.0.1:9/").catch((e: unknown) => e);
    const failed = classifyFetchFailure(refused, "Slack file F1: download");
    expect(failed).toBeInstanceOf(ConnectionFailedError);
    expect(failed.message).toBe("Slack file F1: download: connection failed");
    expect(failed.cause).toBe(refused);
  });

  it("Retry-After as seconds or HTTP date; garbage ignored", () => {
    const now = Date.parse("2026-11-30T00:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3);
    expect(parseRetryAfter("Mon, 30 Nov 2026 00:00:10 GMT", now)).toBe(10);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe("classifyError", () => {
  it("passes AppErrors through unchanged", () => {
    const err = new AuthError("x", { service: "freee" });
    expect(classifyError(err)).toBe(err);
  });

  it("a network error code anywhere in the cause chain → ConnectionFailedError", () => {
    const root = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    const err = classifyError(new TypeError("fetch failed", { cause: root }));
    expect(err).toBeInstanceOf(ConnectionFailedError);
  });

  it("a plain bug stays a bug (not retried as transient)", () => {
    const bug = new TypeError("x is not a function");
    expect(classifyError(bug)).toBe(bug);
  });
});
