import type { Logger } from "@aws-lambda-powertools/logger";
import type { SFNClient } from "@aws-sdk/client-sfn";
import type { ActionDeps } from "../actions";
import type { BotTokenResolver } from "../../slack-api/bot-token";
import type { HomeDeps } from "../home-service";
import type { DynamoInstallationStore } from "../../store/installations";

/** What the Slack listeners need (lib/ingress/bolt-app.ts builds the App over it). */
export interface BoltDeps {
  signingSecret: string;
  sfn: SFNClient;
  taskPipelineArn: string;
  actions: ActionDeps;
  home: HomeDeps;
  tokens: BotTokenResolver;
  installations: Pick<DynamoInstallationStore, "deleteInstallation">;
  slackApiUrl?: string;
  log: Logger;
}
