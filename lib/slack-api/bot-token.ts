import { optionalEnv, type Env } from "../core/config/env";
import { AuthError } from "../core/errors/taxonomy";
import { registerSecret } from "../core/redaction/secret-registry";
import type { DynamoInstallationStore } from "../store/installations";

export interface BotCredentials {
  botToken: string;
  botUserId?: string;
  botId?: string;
}

/** Where a workspace's bot token comes from. */
export interface BotTokenResolver {
  /** Throws AuthError when the workspace has no installation (not installed, or uninstalled). */
  resolve(teamId: string, enterpriseId?: string): Promise<BotCredentials>;
}

/** Single-workspace mode: one bot token from `SLACK_BOT_TOKEN`, whatever the team. */
export class StaticBotTokenResolver implements BotTokenResolver {
  constructor(private readonly credentials: BotCredentials) {}
  async resolve(): Promise<BotCredentials> {
    return this.credentials;
  }
}

/** Multi-workspace mode: the bot token of the workspace's installation. */
export class InstallationBotTokenResolver implements BotTokenResolver {
  constructor(private readonly installations: Pick<DynamoInstallationStore, "find">) {}

  async resolve(teamId: string, enterpriseId?: string): Promise<BotCredentials> {
    const installation = await this.installations.find({ teamId, enterpriseId, isEnterpriseInstall: false });
    const token = installation?.bot?.token;
    if (installation === undefined || token === undefined) {
      throw new AuthError("Slack app is not installed in this workspace", { service: "slack", details: { teamId, enterpriseId } });
    }
    return { botToken: token, botUserId: installation.bot?.userId, botId: installation.bot?.id };
  }
}

/** SLACK_BOT_TOKEN set → single-workspace mode; otherwise installations from the table. */
export function createBotTokenResolver(installations: Pick<DynamoInstallationStore, "find">, env: Env = process.env): BotTokenResolver {
  const token = optionalEnv("SLACK_BOT_TOKEN", env);
  registerSecret(token);
  if (token !== undefined) return new StaticBotTokenResolver({ botToken: token, botUserId: optionalEnv("SLACK_BOT_USER_ID", env) });
  return new InstallationBotTokenResolver(installations);
}
