import type { App } from "@slack/bolt";
import type { BoltDeps } from "./deps";

/** The app leaves a workspace (uninstalled, bot token revoked): its installation goes too. */
export function registerLifecycleListeners(app: App, deps: BoltDeps): void {
  app.event("app_uninstalled", async ({ context }) => {
    await deps.installations.deleteInstallation({ teamId: context.teamId, enterpriseId: context.enterpriseId, isEnterpriseInstall: context.isEnterpriseInstall === true });
    deps.log.info("Slack app uninstalled; installation deleted", { teamId: context.teamId });
  });
  app.event("tokens_revoked", async ({ event, context }) => {
    if ((event.tokens.bot ?? []).length === 0) return;
    await deps.installations.deleteInstallation({ teamId: context.teamId, enterpriseId: context.enterpriseId, isEnterpriseInstall: context.isEnterpriseInstall === true });
    deps.log.info("bot token revoked; installation deleted", { teamId: context.teamId });
  });
}
