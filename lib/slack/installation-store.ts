import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Installation, InstallationQuery, InstallationStore } from "@slack/oauth";
import { RecordNotFoundError } from "../errors/taxonomy";
import { translateDynamoError } from "../store/conditional";
import { Keys } from "../store/table";

/** The id an installation is stored under: the enterprise for an org-wide install, else the workspace. */
export function installationIdFor(query: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean }): string {
  if (query.isEnterpriseInstall && query.enterpriseId !== undefined) return `E#${query.enterpriseId}`;
  if (query.teamId !== undefined) return `T#${query.teamId}`;
  throw new RecordNotFoundError("installation query has neither team nor enterprise id");
}

/**
 * `@slack/oauth` InstallationStore on the single DynamoDB table (item `Keys.installation(id)`). The item holds
 * the installation as Slack returned it (bot token included): the table is encrypted at rest and never logged.
 */
export class DynamoInstallationStore implements InstallationStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: () => Date = () => new Date(),
    /**
     * Keep found installations this long in memory (0: off). The ingress looks the bot token up on every
     * request; a warm instance then skips that read. Writes through this instance (install, uninstall, token
     * revoked) clear it; another instance's uninstall is seen within the TTL (Slack refuses the old token).
     */
    private readonly cacheTtlMs = 0,
  ) {}

  private readonly cache = new Map<string, { installation: Installation<"v1" | "v2", boolean>; expiresAt: number }>();

  async storeInstallation<AuthVersion extends "v1" | "v2">(installation: Installation<AuthVersion, boolean>): Promise<void> {
    const id = installationIdFor({
      teamId: installation.team?.id,
      enterpriseId: installation.enterprise?.id,
      isEnterpriseInstall: installation.isEnterpriseInstall,
    });
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...Keys.installation(id), recordType: "installation", installation, installedAt: this.clock().toISOString() },
        }),
      );
    } catch (err) {
      throw translateDynamoError(err, "storeInstallation");
    } finally {
      this.cache.clear();
    }
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation<"v1" | "v2", boolean>> {
    const found = await this.find(query);
    if (found === undefined) {
      throw new RecordNotFoundError("Slack app is not installed in this workspace", {
        details: { teamId: query.teamId, enterpriseId: query.enterpriseId },
      });
    }
    return found;
  }

  /** The installation, or undefined when the workspace has not installed the app. */
  async find(query: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean }): Promise<Installation<"v1" | "v2", boolean> | undefined> {
    const ids: string[] = [];
    if (query.isEnterpriseInstall && query.enterpriseId !== undefined) ids.push(`E#${query.enterpriseId}`);
    if (query.teamId !== undefined) ids.push(`T#${query.teamId}`);
    // An org-wide install also authorises events of its workspaces.
    if (!query.isEnterpriseInstall && query.enterpriseId !== undefined) ids.push(`E#${query.enterpriseId}`);
    const cacheKey = ids.join("|");
    const cached = this.cache.get(cacheKey);
    if (cached !== undefined && cached.expiresAt > this.clock().getTime()) return cached.installation;
    for (const id of ids) {
      try {
        const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: Keys.installation(id), ConsistentRead: true }));
        if (out.Item?.installation !== undefined) {
          const installation = out.Item.installation as Installation<"v1" | "v2", boolean>;
          if (this.cacheTtlMs > 0) this.cache.set(cacheKey, { installation, expiresAt: this.clock().getTime() + this.cacheTtlMs });
          return installation;
        }
      } catch (err) {
        throw translateDynamoError(err, "fetchInstallation");
      }
    }
    return undefined;
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    const id = installationIdFor(query);
    try {
      await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: Keys.installation(id) }));
    } catch (err) {
      throw translateDynamoError(err, "deleteInstallation");
    } finally {
      this.cache.clear();
    }
  }
}
