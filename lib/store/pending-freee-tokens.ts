import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import * as z from "../core/zod";
import { MalformedOutputError } from "../core/errors/taxonomy";
import { isConditionFailure, translateDynamoError } from "./conditional";
import { Keys, TABLE_KEYS } from "./table";
import type { FreeeTokens } from "./freee-connections";
import type { TokenCipher } from "./token-cipher";

/**
 * Refreshed freee tokens whose write to the connection item failed (`TEAM#<team>` / `FREEE#PENDING`). freee
 * refresh tokens are single-use: once freee answered a refresh, the old refresh token is spent and the new
 * pair exists only in our hands. If the connection item cannot take it, it is parked here, encrypted like
 * the connection's tokens, and the next refresh of that workspace promotes it instead of calling freee with
 * the spent token. One item per workspace: a refresh of version v can only start once v is current, so an
 * older pending pair is either promoted or obsolete. Written and consumed with UpdateItem only (the MCP role
 * has no PutItem / DeleteItem on `TEAM#`); once promoted, its ciphertext is removed.
 */
export interface PendingTokens {
  teamId: string;
  /** The connection version these tokens replace. */
  fromVersion: number;
  tokens: FreeeTokens;
  savedAt: string;
}

const StoredSchema = z.object({
  teamId: z.string().check(z.minLength(1)),
  fromVersion: z.int().check(z.positive()),
  /** Absent once the pair was promoted into the connection item. */
  tokens: z.optional(z.string().check(z.minLength(1))),
  accessTokenExpiresAt: z.string().check(z.minLength(1)),
  refreshTokenIssuedAt: z.string().check(z.minLength(1)),
  scope: z.optional(z.string()),
  savedAt: z.string().check(z.minLength(1)),
});
const SecretSchema = z.object({ accessToken: z.string().check(z.minLength(1)), refreshToken: z.string().check(z.minLength(1)) });

/** A parked pair is useless after the refresh token's 90 days; DynamoDB's TTL removes it then. */
const PENDING_TTL_SECONDS = 90 * 86_400;

export class PendingTokenStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly cipher: TokenCipher,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async save(teamId: string, fromVersion: number, tokens: FreeeTokens): Promise<void> {
    const now = this.clock();
    const ciphertext = await this.cipher.encrypt(JSON.stringify({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken }), {
      teamId,
      purpose: "pending",
    });
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.freeePendingTokens(teamId),
          UpdateExpression:
            "SET recordType = :rt, teamId = :team, fromVersion = :v, tokens = :tokens, accessTokenExpiresAt = :exp, " +
            "refreshTokenIssuedAt = :issued, savedAt = :now, #ttl = :ttl" +
            (tokens.scope === undefined ? " REMOVE #scope, consumedAt" : ", #scope = :scope REMOVE consumedAt"),
          ExpressionAttributeNames: { "#ttl": TABLE_KEYS.ttlAttribute, "#scope": "scope" },
          ExpressionAttributeValues: {
            ":rt": "freee_pending_tokens",
            ":team": teamId,
            ":v": fromVersion,
            ":tokens": ciphertext,
            ":exp": tokens.accessTokenExpiresAt,
            ":issued": tokens.refreshTokenIssuedAt ?? now.toISOString(),
            ":now": now.toISOString(),
            ":ttl": Math.floor(now.getTime() / 1000) + PENDING_TTL_SECONDS,
            ...(tokens.scope === undefined ? {} : { ":scope": tokens.scope }),
          },
        }),
      );
    } catch (err) {
      throw translateDynamoError(err, "freee pending tokens save");
    }
  }

  async get(teamId: string): Promise<PendingTokens | undefined> {
    let item: Record<string, unknown> | undefined;
    try {
      const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: Keys.freeePendingTokens(teamId), ConsistentRead: true }));
      item = out.Item;
    } catch (err) {
      throw translateDynamoError(err, "freee pending tokens get");
    }
    if (item === undefined) return undefined;
    const stored = StoredSchema.safeParse(item);
    if (!stored.success) throw new MalformedOutputError("stored pending freee tokens do not match their schema", { cause: stored.error });
    if (stored.data.tokens === undefined) return undefined;
    const plain = await this.cipher.decrypt(stored.data.tokens, { teamId, purpose: "pending" });
    const secret = SecretSchema.safeParse(JSON.parse(plain));
    if (!secret.success) throw new MalformedOutputError("decrypted pending freee tokens have an unexpected shape");
    const { accessTokenExpiresAt, refreshTokenIssuedAt, scope } = stored.data;
    return {
      teamId,
      fromVersion: stored.data.fromVersion,
      savedAt: stored.data.savedAt,
      tokens: { ...secret.data, accessTokenExpiresAt, refreshTokenIssuedAt, ...(scope === undefined ? {} : { scope }) },
    };
  }

  /** The connection item holds the pair now: drop the parked ciphertext (only the pair for `fromVersion`). */
  async consume(teamId: string, fromVersion: number): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.freeePendingTokens(teamId),
          UpdateExpression: "SET consumedAt = :now REMOVE tokens",
          ConditionExpression: "fromVersion = :v AND attribute_exists(tokens)",
          ExpressionAttributeValues: { ":v": fromVersion, ":now": this.clock().toISOString() },
        }),
      );
    } catch (err) {
      // Another pair (or none) is there now: nothing of ours to drop.
      if (isConditionFailure(err)) return;
      throw translateDynamoError(err, "freee pending tokens consume");
    }
  }
}
