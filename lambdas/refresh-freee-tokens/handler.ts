import type { Context } from "aws-lambda";
import { beginInvocation } from "../../lib/core/observability/logger";
import { refreshAgingTokens, type RefreshRunSummary, type TokenRefresherDeps } from "../../lib/freee/token-refresher";
import { createTokenRefresherFromEnv } from "../../wiring/token-refresher";

/**
 * The daily freee token refresh (EventBridge schedule in infra/stack.ts): keeps idle workspaces' refresh
 * tokens inside their 90 days. Wiring happens once per container; a failed wiring is not cached.
 */
let wired: Promise<TokenRefresherDeps> | undefined;

export async function handler(_event: unknown, context: Context): Promise<RefreshRunSummary> {
  beginInvocation(context);
  wired ??= createTokenRefresherFromEnv().catch((err: unknown) => {
    wired = undefined;
    throw err;
  });
  return refreshAgingTokens(await wired, () => context.getRemainingTimeInMillis());
}
