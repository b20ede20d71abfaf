import { describe, expect, it } from "vitest";
import {
  AgentRunFailedError,
  AppError,
  AuthError,
  BadRequestError,
  ConnectionFailedError,
  EmptyResponseError,
  ErrorNames,
  FatalConfigError,
  IllegalTransitionError,
  LimitReachedError,
  MalformedOutputError,
  IncompleteRunError,
  WriteOutcomeUnknownError,
  RateLimitedError,
  RecordNotFoundError,
  RefusedResponseError,
  RunTimeoutError,
  SilentFailureError,
  StateConflictError,
  ThrottledError,
  RefreshedTokensLostError,
  TransientError,
  TruncatedResponseError,
  UpstreamServerError,
  UpstreamTimeoutError,
  type ErrorKind, FreeeCompanyChangedError, FreeeThrottledError, FreeeForbiddenError, FreeeNotFoundError, FreeeRateLimitedError } from "../../../lib/core/errors/taxonomy";
import { ERROR_CLASS_NAMES } from "../../../lib/core/messages/error-names";

// The error table of docs/architecture.md, one row each: class → kind. The name is what Step Functions' ErrorEquals matches.
const rows: Array<[string, () => AppError, ErrorKind]> = [
  ["TransientError", () => new TransientError("x"), "transient"],
  ["RateLimitedError", () => new RateLimitedError("x", { retryAfterSeconds: 3 }), "transient"],
  ["UpstreamServerError", () => new UpstreamServerError("x"), "transient"],
  ["UpstreamTimeoutError", () => new UpstreamTimeoutError("x"), "transient"],
  ["ConnectionFailedError", () => new ConnectionFailedError("x"), "transient"],
  ["ThrottledError", () => new ThrottledError("x"), "transient"],
  ["RefreshedTokensLostError", () => new RefreshedTokensLostError("x"), "transient"],
  ["EmptyResponseError", () => new EmptyResponseError("x"), "business"],
  ["TruncatedResponseError", () => new TruncatedResponseError("x"), "business"],
  ["RefusedResponseError", () => new RefusedResponseError("x", { stopDetails: { category: "cyber" } }), "business"],
  ["MalformedOutputError", () => new MalformedOutputError("x"), "business"],
  ["AuthError", () => new AuthError("x", { service: "freee" }), "auth"],
  ["FreeeCompanyChangedError", () => new FreeeCompanyChangedError("x"), "auth"],
  ["FreeeThrottledError", () => new FreeeThrottledError("x", { retryAfterSeconds: 600 }), "transient"],
  ["BadRequestError", () => new BadRequestError("x"), "business"],
  ["FatalConfigError", () => new FatalConfigError("x"), "fatal"],
  ["RunTimeoutError", () => new RunTimeoutError("x"), "timeout"],
  ["LimitReachedError", () => new LimitReachedError("x", { limit: "regenerations" }), "user"],
  ["StateConflictError", () => new StateConflictError("x"), "business"],
  ["IllegalTransitionError", () => new IllegalTransitionError("x"), "business"],
  ["RecordNotFoundError", () => new RecordNotFoundError("x"), "business"],
  ["IncompleteRunError", () => new IncompleteRunError("x"), "business"],
  ["FreeeForbiddenError", () => new FreeeForbiddenError("x"), "business"],
  ["FreeeNotFoundError", () => new FreeeNotFoundError("x"), "business"],
  ["FreeeRateLimitedError", () => new FreeeRateLimitedError("x"), "business"],
  ["WriteOutcomeUnknownError", () => new WriteOutcomeUnknownError("x"), "business"],
  ["AgentRunFailedError", () => new AgentRunFailedError("x", { reason: "session_error" }), "business"],
];

describe("error taxonomy", () => {
  it.each(rows)("%s sets its own name and kind and keeps its cause", (name, make, kind) => {
    const err = make();
    expect(err.name).toBe(name);
    expect(err.kind).toBe(kind);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toBeInstanceOf(Error);
    const cause = new Error("root");
    const withCause = new (err.constructor as new (m: string, o: object) => AppError)("wrapped", {
      cause,
      limit: "reruns",
      reason: "terminated",
    });
    expect(withCause.cause).toBe(cause);
    expect(withCause.name).toBe(name);
  });

  it("transient subclasses are caught by the TransientError base", () => {
    for (const err of [new RateLimitedError("a"), new UpstreamServerError("b"), new UpstreamTimeoutError("c"), new ConnectionFailedError("d"), new ThrottledError("e")]) {
      expect(err).toBeInstanceOf(TransientError);
      expect(err.kind).toBe("transient");
    }
  });

  it("catching SilentFailureError catches all three silent failures, and the subclass says which", () => {
    const errors = [new EmptyResponseError("e"), new TruncatedResponseError("t"), new RefusedResponseError("r")];
    const seen = errors.map((err) => {
      try {
        throw err;
      } catch (caught) {
        expect(caught).toBeInstanceOf(SilentFailureError);
        return (caught as Error).name;
      }
    });
    expect(seen).toEqual(["EmptyResponseError", "TruncatedResponseError", "RefusedResponseError"]);
  });

  it("a refusal keeps the provider's stop_details", () => {
    const details = { type: "refusal", category: "cyber", explanation: "…" };
    expect(new RefusedResponseError("refused", { stopDetails: details }).stopDetails).toEqual(details);
  });

  it("a rate limit keeps Retry-After", () => {
    expect(new RateLimitedError("429", { retryAfterSeconds: 12 }).retryAfterSeconds).toBe(12);
  });

  it("ErrorNames lists every class a state machine matches, each once, and each is a real class name", () => {
    const all = Object.values(ErrorNames).flat();
    expect(new Set(all).size).toBe(all.length);
    const known = new Set(rows.map(([name]) => name));
    for (const name of all) expect(known.has(name)).toBe(true);
    expect(all).toContain("UpstreamTimeoutError");
    expect(all).not.toContain("SilentFailureError");
  });

  it("every class has its Japanese name (App Home, the web admin and the report name them by it)", () => {
    const classes = [...rows.map(([name]) => name), "SilentFailureError", "AdminDataError", "SignInRefusedError", ...Object.values(ErrorNames).flat()];
    expect(classes.filter((name) => !Object.hasOwn(ERROR_CLASS_NAMES, name))).toEqual([]);
    for (const name of Object.values(ERROR_CLASS_NAMES)) expect(name).toMatch(/[ぁ-んァ-ヶ一-龠]/);
  });
});
