import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Per-request facts that Bolt's error handler and the ingress share: whether a listener failed transiently
 * (then the 500 is deliberate, so Slack redelivers) as opposed to Bolt failing on a malformed payload.
 */
export interface RequestScope {
  transientFailure: boolean;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

export function markTransientFailure(): void {
  const scope = requestScope.getStore();
  if (scope !== undefined) scope.transientFailure = true;
}
