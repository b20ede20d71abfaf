import type { Logger } from "@aws-lambda-powertools/logger";
import type { SFNClient } from "@aws-sdk/client-sfn";
import type { ActionDeps } from "../../actions";
import type { BotTokenResolver } from "../bot-token";
import type { HomeDeps } from "../home-service";
import type { DynamoInstallationStore } from "../installation-store";

/** What the Slack listeners need (lib/slack/bolt-app.ts builds the App over it). */
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
