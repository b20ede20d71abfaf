import { App, AwsLambdaReceiver, type Authorize } from "@slack/bolt";
import { routeErrors } from "./error-routing";
import { registerApprovalListeners } from "./listeners/approvals";
import type { BoltDeps } from "./listeners/deps";
import { registerHomeListeners } from "./listeners/home";
import { registerLifecycleListeners } from "./listeners/lifecycle";
import { registerMessageListeners } from "./listeners/messages";
import { registerRunListeners } from "./listeners/runs";
import { slackLogger } from "./slack-logger";

export type { BoltDeps } from "./listeners/deps";

/**
 * Bolt in HTTP mode behind AwsLambdaReceiver. Every listener does only what fits the 3 s budget:
 * StartExecution (a message), a conditional write + SendTaskSuccess (a button), views.open / views.publish.
 * The listeners live by topic in lib/ingress/listeners/.
 */
export function createBoltApp(deps: BoltDeps): { app: App; receiver: AwsLambdaReceiver } {
  const logger = slackLogger(deps.log, "bolt");
  const receiver = new AwsLambdaReceiver({ signingSecret: deps.signingSecret, logger });
  const authorize: Authorize<boolean> = async (source) => {
    if (source.teamId === undefined) throw new Error("event has no team id");
    const credentials = await deps.tokens.resolve(source.teamId, source.enterpriseId);
    return { ...credentials, teamId: source.teamId, ...(source.enterpriseId === undefined ? {} : { enterpriseId: source.enterpriseId }) };
  };
  const app = new App({
    receiver,
    authorize,
    logger,
    clientOptions: {
      ...(deps.slackApiUrl === undefined ? {} : { slackApiUrl: deps.slackApiUrl }),
      retryConfig: { retries: 1, factor: 1, minTimeout: 100, maxTimeout: 300 },
      rejectRateLimitedCalls: true,
    },
  });
  routeErrors(app, deps.log);
  registerMessageListeners(app, deps);
  registerApprovalListeners(app, deps);
  registerRunListeners(app, deps);
  registerHomeListeners(app, deps);
  registerLifecycleListeners(app, deps);
  return { app, receiver };
}
