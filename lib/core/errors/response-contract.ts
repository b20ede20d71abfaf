import { EmptyResponseError, RefusedResponseError, TruncatedResponseError } from "./taxonomy";

/**
 * Exception Translation for LLM replies (docs/architecture.md, error table): a "200 OK" is judged against a contract before anything
 * is stored. The judge is provider-neutral; each provider's stop-reason names are mapped where its contract is
 * built (see `anthropicContract`).
 */

/** What the judge needs of a reply, whatever the provider. */
export interface LlmReply {
  stopReason: string | null;
  stopDetails: unknown;
  /** The text blocks of the reply, in order. */
  texts: readonly string[];
}

export interface ResponseContract {
  provider: string;
  /** Stop reasons that mean the output was cut off. */
  truncatedStopReasons: ReadonlySet<string>;
  /** Stop reasons that mean the model declined to answer. */
  refusedStopReasons: ReadonlySet<string>;
}

/** Returns the reply's text when it meets the contract; otherwise throws the SilentFailure subclass that says why. */
export function judgeReply(reply: LlmReply, contract: ResponseContract): string {
  const details = { provider: contract.provider, stopReason: reply.stopReason };
  if (reply.stopReason !== null && contract.refusedStopReasons.has(reply.stopReason)) {
    throw new RefusedResponseError(`model refused (stop_reason=${reply.stopReason})`, {
      stopDetails: reply.stopDetails,
      details: { ...details, stopDetails: reply.stopDetails },
    });
  }
  if (reply.stopReason !== null && contract.truncatedStopReasons.has(reply.stopReason)) {
    throw new TruncatedResponseError(`reply cut off (stop_reason=${reply.stopReason})`, { details });
  }
  const text = reply.texts.join("");
  if (text.trim() === "") {
    throw new EmptyResponseError("reply has no text", { details: { ...details, blocks: reply.texts.length } });
  }
  return text;
}

/**
 * Reads a field the contract expects. A missing field is a cut-off reply, not an empty value: the original
 * error (or a description of the gap) is kept as `cause`. This is the line that `.get("body", "")` got wrong.
 */
export function requireField<T extends object, K extends keyof T>(source: T, key: K, where: string): NonNullable<T[K]> {
  let value: T[K];
  try {
    value = source[key];
  } catch (cause) {
    throw new TruncatedResponseError(`${where}: cannot read "${String(key)}"`, { cause });
  }
  if (value === undefined || value === null) {
    throw new TruncatedResponseError(`${where}: expected field "${String(key)}" is missing`, {
      cause: new TypeError(`${String(key)} is ${value === null ? "null" : "undefined"}`),
      details: { missingField: String(key) },
    });
  }
  return value as NonNullable<T[K]>;
}
