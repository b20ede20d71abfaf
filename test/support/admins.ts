import { AdminDirectory, TeamSettingsStore, type Actor, type SlackRole } from "../../lib/ingress/actions";
import type { TestTable } from "./dynamo";

/**
 * An admin check over the real settings table, with what users.info would say held in `roles` (absent =
 * user_not_found) and every lookup recorded — for tests below the Slack boundary (the ingress tests use the fake).
 */
export function testAdmins(table: TestTable, adminUserIds: readonly string[] = ["UADMIN"], cacheTtlMs?: number) {
  const roles = new Map<string, SlackRole>();
  const lookups: Actor[] = [];
  const admins = new AdminDirectory({
    adminUserIds,
    ...(cacheTtlMs === undefined ? {} : { cacheTtlMs }),
    settings: new TeamSettingsStore(table.doc, table.tableName),
    lookup: async (actor) => {
      lookups.push(actor);
      return roles.get(actor.userId);
    },
  });
  return { admins, roles, lookups };
}
