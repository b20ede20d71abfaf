import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Installation, InstallationQuery, InstallationStore } from "@slack/oauth";
import { MalformedOutputError, RecordNotFoundError } from "../core/errors/taxonomy";
import { optionalEnv, type Env } from "../core/config/env";
import { createTokenCipher, lazyTokenCipher, type TokenCipher } from "./token-cipher";
import { registerSecret } from "../core/redaction/secret-registry";
import { isConditionFailure, translateDynamoError } from "./conditional";
import { Keys, TABLE_KEYS } from "./table";

type AnyInstallation = Installation<"v1" | "v2", boolean>;

/** The id an installation is stored under: the enterprise for an org-wide install, else the workspace. */
export function installationIdFor(query: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean }): string {
  if (query.isEnterpriseInstall && query.enterpriseId !== undefined) return `E#${query.enterpriseId}`;
  if (query.teamId !== undefined) return `T#${query.teamId}`;
  throw new RecordNotFoundError("installation query has neither team nor enterprise id");
}

export interface InstallationStoreOptions {
  /** Seals the installation (bot and user tokens) as freee tokens are sealed: KMS on AWS, the local key in dev. */
  cipher: TokenCipher;
  clock?: () => Date;
  /**
   * Keep found installations this long in memory (0: off). The ingress looks the bot token up on every
   * request; a warm instance then skips that read. Writes through this instance (install, uninstall, token
   * revoked) clear it; another instance's uninstall is seen within the TTL (Slack refuses the old token).
   */
  cacheTtlMs?: number;
  /**
   * Re-encrypt an item written in plain text by an earlier version when it is read (the ingress, which may
   * encrypt; the step Lambdas only decrypt and read such an item as it is until the ingress has sealed it).
   */
  sealPlainItems?: boolean;
}

/**
 * The cipher for installations from the settings: built now (a missing TOKEN_KMS_KEY_ID fails the cold start),
 * except in single-workspace mode (SLACK_BOT_TOKEN), where no installation is ever opened.
 */
export function installationCipher(env: Env = process.env): TokenCipher {
  return optionalEnv("SLACK_BOT_TOKEN", env) === undefined ? createTokenCipher(env) : lazyTokenCipher(env);
}

/**
 * How long a warm instance keeps an installation it read (every Slack call resolves its bot token): a minute, so an
 * uninstall handled elsewhere is seen at most that late — Slack refuses a revoked token meanwhile (docs/bench.md).
 */
export const INSTALLATION_CACHE_MS = 60_000;

/** An uninstalled workspace's tombstone disappears with the table's TTL after this long. */
const TOMBSTONE_TTL_SECONDS = 30 * 24 * 3600;

/**
 * `@slack/oauth` InstallationStore on the single DynamoDB table (item `Keys.installation(id)`). The installation
 * as Slack returned it (bot token, user token, refresh tokens) is stored sealed (`sealed`, bound to the item's
 * id); only the ids needed to find it stay readable. An uninstall overwrites the item with a tombstone, so no
 * role needs DeleteItem.
 */
export class DynamoInstallationStore implements InstallationStore {
  private readonly cipher: TokenCipher;
  private readonly clock: () => Date;
  private readonly cacheTtlMs: number;
  private readonly sealPlainItems: boolean;
  private readonly cache = new Map<string, { installation: AnyInstallation; expiresAt: number }>();

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: InstallationStoreOptions,
  ) {
    this.cipher = options.cipher;
    this.clock = options.clock ?? (() => new Date());
    this.cacheTtlMs = options.cacheTtlMs ?? 0;
    this.sealPlainItems = options.sealPlainItems ?? false;
  }

  async storeInstallation<AuthVersion extends "v1" | "v2">(installation: Installation<AuthVersion, boolean>): Promise<void> {
    const id = installationIdFor({
      teamId: installation.team?.id,
      enterpriseId: installation.enterprise?.id,
      isEnterpriseInstall: installation.isEnterpriseInstall,
    });
    registerTokens(installation);
    const sealed = await this.seal(id, installation);
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...Keys.installation(id),
            recordType: "installation",
            ...ids(installation),
            sealed,
            cipher: this.cipher.kind,
            installedAt: this.clock().toISOString(),
          },
        }),
      );
    } catch (err) {
      throw translateDynamoError(err, "storeInstallation");
    } finally {
      this.cache.clear();
    }
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<AnyInstallation> {
    const found = await this.find(query);
    if (found === undefined) {
      throw new RecordNotFoundError("Slack app is not installed in this workspace", {
        details: { teamId: query.teamId, enterpriseId: query.enterpriseId },
      });
    }
    return found;
  }

  /** The installation, or undefined when the workspace has not installed the app (or uninstalled it). */
  async find(query: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean }): Promise<AnyInstallation | undefined> {
    const idsToTry: string[] = [];
    if (query.isEnterpriseInstall && query.enterpriseId !== undefined) idsToTry.push(`E#${query.enterpriseId}`);
    if (query.teamId !== undefined) idsToTry.push(`T#${query.teamId}`);
    // An org-wide install also authorises events of its workspaces.
    if (!query.isEnterpriseInstall && query.enterpriseId !== undefined) idsToTry.push(`E#${query.enterpriseId}`);
    const cacheKey = idsToTry.join("|");
    const cached = this.cache.get(cacheKey);
    if (cached !== undefined && cached.expiresAt > this.clock().getTime()) return cached.installation;
    for (const id of idsToTry) {
      let item: Record<string, unknown> | undefined;
      try {
        item = (await this.doc.send(new GetCommand({ TableName: this.tableName, Key: Keys.installation(id), ConsistentRead: true }))).Item;
      } catch (err) {
        throw translateDynamoError(err, "fetchInstallation");
      }
      const installation = await this.open(id, item);
      if (installation !== undefined) {
        registerTokens(installation);
        if (this.cacheTtlMs > 0) this.cache.set(cacheKey, { installation, expiresAt: this.clock().getTime() + this.cacheTtlMs });
        return installation;
      }
    }
    return undefined;
  }

  /** Uninstall / tokens revoked: the item becomes a tombstone without tokens (expired by TTL later). */
  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    const id = installationIdFor(query);
    const now = this.clock();
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...Keys.installation(id),
            recordType: "installation",
            uninstalledAt: now.toISOString(),
            [TABLE_KEYS.ttlAttribute]: Math.floor(now.getTime() / 1000) + TOMBSTONE_TTL_SECONDS,
          },
        }),
      );
    } catch (err) {
      throw translateDynamoError(err, "deleteInstallation");
    } finally {
      this.cache.clear();
    }
  }

  private async seal(id: string, installation: Installation<"v1" | "v2", boolean>): Promise<string> {
    return this.cipher.encrypt(JSON.stringify(installation), { installation: id });
  }

  private async open(id: string, item: Record<string, unknown> | undefined): Promise<AnyInstallation | undefined> {
    if (item === undefined) return undefined;
    if (typeof item.sealed === "string") {
      const plain = await this.cipher.decrypt(item.sealed, { installation: id });
      try {
        return JSON.parse(plain) as AnyInstallation;
      } catch (cause) {
        throw new MalformedOutputError("decrypted Slack installation is not JSON", { cause, details: { installationId: id } });
      }
    }
    if (item.installation !== undefined && item.installation !== null) {
      // Written in plain text by an earlier version: readable once, sealed now where this store may encrypt.
      const installation = item.installation as AnyInstallation;
      if (this.sealPlainItems) await this.sealPlainItem(id, installation);
      return installation;
    }
    return undefined;
  }

  private async sealPlainItem(id: string, installation: AnyInstallation): Promise<void> {
    const sealed = await this.seal(id, installation);
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.installation(id),
          UpdateExpression: "SET sealed = :sealed, cipher = :cipher REMOVE installation",
          // Only the plain item read just now: a reinstall meanwhile wrote a sealed one, which stays.
          ConditionExpression: "attribute_exists(installation)",
          ExpressionAttributeValues: { ":sealed": sealed, ":cipher": this.cipher.kind },
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) return;
      throw translateDynamoError(err, "seal plain installation");
    }
  }
}

/** What stays readable on the item: the ids that say whose installation it is, no token. */
function ids(installation: Installation<"v1" | "v2", boolean>): Record<string, string> {
  const out: Record<string, string> = {};
  if (installation.team?.id !== undefined) out.teamId = installation.team.id;
  if (installation.enterprise?.id !== undefined) out.enterpriseId = installation.enterprise.id;
  if (installation.appId !== undefined) out.appId = installation.appId;
  return out;
}

function registerTokens(installation: Installation<"v1" | "v2", boolean>): void {
  registerSecret(installation.bot?.token);
  registerSecret(installation.bot?.refreshToken);
  registerSecret(installation.user?.token);
  registerSecret(installation.user?.refreshToken);
}
