import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import * as z from "../core/zod";
import { MalformedOutputError } from "../core/errors/taxonomy";
import { isConditionFailure, translateDynamoError } from "./conditional";
import { ItemTable, parseRecord } from "./item-table";
import { Keys, TABLE_KEYS } from "./table";
import { registerSecret } from "../core/redaction/secret-registry";
import { DISCONNECTED } from "./freee-disconnect";
import type { TokenCipher } from "./token-cipher";

/**
 * The freee connection of a workspace (`TEAM#<team>` / `FREEE`). Tokens are stored only as one
 * ciphertext; `version` rises with every token change (optimistic lock), and a refresh lease
 * (`refreshLeaseOwner` / `refreshLeaseUntil`) serialises refreshes, because freee refresh tokens are single-use.
 */

export interface FreeeTokens {
  accessToken: string;
  refreshToken: string;
  /** ISO time the access token expires. */
  accessTokenExpiresAt: string;
  scope?: string;
  /**
   * ISO time freee issued the refresh token (it lapses 90 days later). The token endpoint always sets it; when
   * absent the store stamps its own clock, which is the issue time for tokens stored right after the grant.
   */
  refreshTokenIssuedAt?: string;
}

export type ConnectionStatus = "active" | "reauth_required";

/** freee refresh tokens lapse 90 days after issue (freee's token lifetime FAQ); the scheduled refresh renews them. */
export const REFRESH_TOKEN_LIFETIME_DAYS = 90;

/** When the stored refresh token lapses; undefined for a connection stored before the issue time was recorded. */
export function refreshTokenExpiresAt(meta: Pick<FreeeConnectionMeta, "refreshTokenIssuedAt">): string | undefined {
  if (meta.refreshTokenIssuedAt === undefined) return undefined;
  return new Date(Date.parse(meta.refreshTokenIssuedAt) + REFRESH_TOKEN_LIFETIME_DAYS * 86_400_000).toISOString();
}

/** Everything but the tokens: what App Home and the lease logic read. */
export interface FreeeConnectionMeta {
  teamId: string;
  companyId: number;
  companyName?: string;
  status: ConnectionStatus;
  accessTokenExpiresAt: string;
  scope?: string;
  /** When freee issued the stored refresh token; undefined only on items stored before it was recorded. */
  refreshTokenIssuedAt?: string;
  connectedBy: string;
  connectedAt: string;
  updatedAt: string;
  version: number;
  refreshLeaseOwner?: string;
  refreshLeaseUntil?: number;
  reauthReason?: string;
}

export interface FreeeConnection extends FreeeConnectionMeta {
  accessToken: string;
  refreshToken: string;
}

const StoredSchema = z.object({
  teamId: z.string().check(z.minLength(1)),
  tokens: z.string().check(z.minLength(1)),
  cipher: z.enum(["kms", "local"]),
  companyId: z.int().check(z.positive()),
  companyName: z.optional(z.string()),
  status: z.enum(["active", "reauth_required"]),
  accessTokenExpiresAt: z.string().check(z.minLength(1)),
  scope: z.optional(z.string()),
  refreshTokenIssuedAt: z.optional(z.string().check(z.minLength(1))),
  connectedBy: z.string().check(z.minLength(1)),
  connectedAt: z.string().check(z.minLength(1)),
  updatedAt: z.string().check(z.minLength(1)),
  version: z.int().check(z.positive()),
  refreshLeaseOwner: z.optional(z.string()),
  refreshLeaseUntil: z.optional(z.number()),
  reauthReason: z.optional(z.string()),
});
type Stored = z.infer<typeof StoredSchema>;

const SecretSchema = z.object({ accessToken: z.string().check(z.minLength(1)), refreshToken: z.string().check(z.minLength(1)) });

export interface SaveConnectionInput {
  teamId: string;
  tokens: FreeeTokens;
  companyId: number;
  companyName?: string;
  connectedBy: string;
}

export class FreeeConnectionStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly cipher: TokenCipher,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** A new connection (OAuth callback): replaces tokens and company, clears any lease, bumps the version. */
  async save(input: SaveConnectionInput): Promise<FreeeConnection> {
    const now = this.clock().toISOString();
    const ciphertext = await this.encrypt(input.teamId, input.tokens);
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.freeeConnection(input.teamId),
          UpdateExpression:
            "SET recordType = :rt, teamId = :team, tokens = :tokens, cipher = :cipher, companyId = :company, " +
            "#status = :active, accessTokenExpiresAt = :exp, connectedBy = :by, connectedAt = :now, updatedAt = :now, " +
            "refreshTokenIssuedAt = :issued, gsi1pk = :gpk, gsi1sk = :issued, " +
            "version = if_not_exists(version, :zero) + :one" +
            (input.companyName === undefined ? "" : ", companyName = :companyName") +
            (input.tokens.scope === undefined ? "" : ", #scope = :scope") +
            " REMOVE refreshLeaseOwner, refreshLeaseUntil, reauthReason" +
            (input.companyName === undefined ? ", companyName" : "") +
            (input.tokens.scope === undefined ? ", #scope" : ""),
          ExpressionAttributeNames: { "#status": "status", "#scope": "scope" },
          ExpressionAttributeValues: {
            ":rt": "freee_connection",
            ":team": input.teamId,
            ":tokens": ciphertext,
            ":cipher": this.cipher.kind,
            ":company": input.companyId,
            ":active": "active",
            ":exp": input.tokens.accessTokenExpiresAt,
            ":by": input.connectedBy,
            ":now": now,
            ":issued": input.tokens.refreshTokenIssuedAt ?? now,
            ":gpk": Keys.freeeRefreshIndex,
            ":zero": 0,
            ":one": 1,
            ...(input.companyName === undefined ? {} : { ":companyName": input.companyName }),
            ...(input.tokens.scope === undefined ? {} : { ":scope": input.tokens.scope }),
          },
          ReturnValues: "ALL_NEW",
        }),
      );
      // The tokens just sealed are the caller's own: not opened again, so the saving Lambda (the connect
      // callback) needs no Decrypt of freee tokens.
      const { tokens: _tokens, cipher: _cipher, ...meta } = this.parse(out.Attributes);
      return { ...meta, accessToken: input.tokens.accessToken, refreshToken: input.tokens.refreshToken };
    } catch (err) {
      throw translateDynamoError(err, "freee connection save");
    }
  }

  /** The connection without decrypting (App Home, lease checks). */
  async getMeta(teamId: string): Promise<FreeeConnectionMeta | undefined> {
    const stored = await this.read(teamId);
    if (stored === undefined) return undefined;
    const { tokens: _tokens, cipher: _cipher, ...meta } = stored;
    return meta;
  }

  async get(teamId: string): Promise<FreeeConnection | undefined> {
    const stored = await this.read(teamId);
    return stored === undefined ? undefined : this.decode(stored);
  }

  /**
   * Take the refresh lease for the tokens of `version`: succeeds only when the tokens are still those of
   * `version` and no other caller holds an unexpired lease. The loser re-reads and waits.
   */
  async tryAcquireRefreshLease(teamId: string, version: number, owner: string, leaseMs: number): Promise<boolean> {
    const now = this.clock().getTime();
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.freeeConnection(teamId),
          UpdateExpression: "SET refreshLeaseOwner = :owner, refreshLeaseUntil = :until",
          ConditionExpression:
            "version = :v AND #status = :active AND (attribute_not_exists(refreshLeaseUntil) OR refreshLeaseUntil < :now)",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":owner": owner, ":until": now + leaseMs, ":v": version, ":active": "active", ":now": now },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw translateDynamoError(err, "freee refresh lease");
    }
  }

  /**
   * Store refreshed tokens over those of `fromVersion` and drop the lease. Conditional on the version only:
   * whoever holds fresh tokens from freee must keep them (the old refresh token is already spent). Fresh tokens
   * prove the grant works, so a reconnect mark set meanwhile (a caller that found the old token spent) is cleared.
   * Returns undefined when the tokens had already moved on.
   */
  async storeRefreshedTokens(teamId: string, fromVersion: number, tokens: FreeeTokens): Promise<FreeeConnection | undefined> {
    const ciphertext = await this.encrypt(teamId, tokens);
    const now = this.clock().toISOString();
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.freeeConnection(teamId),
          UpdateExpression:
            "SET tokens = :tokens, cipher = :cipher, accessTokenExpiresAt = :exp, updatedAt = :now, version = version + :one, " +
            "#status = :active, refreshTokenIssuedAt = :issued, gsi1pk = :gpk, gsi1sk = :issued" +
            (tokens.scope === undefined ? "" : ", #scope = :scope") +
            " REMOVE refreshLeaseOwner, refreshLeaseUntil, reauthReason",
          ConditionExpression: "version = :v",
          ExpressionAttributeNames: { "#status": "status", ...(tokens.scope === undefined ? {} : { "#scope": "scope" }) },
          ExpressionAttributeValues: {
            ":tokens": ciphertext,
            ":cipher": this.cipher.kind,
            ":exp": tokens.accessTokenExpiresAt,
            ":now": now,
            ":one": 1,
            ":v": fromVersion,
            ":active": "active",
            ":issued": tokens.refreshTokenIssuedAt ?? now,
            ":gpk": Keys.freeeRefreshIndex,
            ...(tokens.scope === undefined ? {} : { ":scope": tokens.scope }),
          },
          ReturnValues: "ALL_NEW",
        }),
      );
      return this.decode(this.parse(out.Attributes));
    } catch (err) {
      if (isConditionFailure(err)) return undefined;
      throw translateDynamoError(err, "freee store refreshed tokens");
    }
  }

  /** Give the lease back after a failed refresh, so the next caller may try at once. */
  async releaseRefreshLease(teamId: string, owner: string): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.freeeConnection(teamId),
          UpdateExpression: "REMOVE refreshLeaseOwner, refreshLeaseUntil",
          ConditionExpression: "refreshLeaseOwner = :owner",
          ExpressionAttributeValues: { ":owner": owner },
        }),
      );
    } catch (err) {
      // Not ours any more (expired and taken): nothing to give back.
      if (isConditionFailure(err)) return;
      throw translateDynamoError(err, "freee release lease");
    }
  }

  /** freee refused the refresh token: the workspace must reconnect (App Home shows it). */
  async markReauthRequired(teamId: string, version: number, reason: string): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.freeeConnection(teamId),
          UpdateExpression: "SET #status = :reauth, reauthReason = :reason, updatedAt = :now REMOVE refreshLeaseOwner, refreshLeaseUntil",
          ConditionExpression: "version = :v",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":reauth": "reauth_required", ":reason": reason, ":now": this.clock().toISOString(), ":v": version },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw translateDynamoError(err, "freee mark reauth");
    }
  }

  /**
   * Every connection whose refresh token was issued before `cutoff` (ISO), oldest first: the scheduled refresh's
   * work list. Connections stored before the issue time was recorded are not in the index until their next
   * token change.
   */
  async listIssuedBefore(cutoff: string): Promise<FreeeConnectionMeta[]> {
    const items = await new ItemTable(this.doc, this.tableName).query(
      {
        IndexName: TABLE_KEYS.byTeamIndex,
        KeyConditionExpression: "gsi1pk = :gpk AND gsi1sk < :cutoff",
        ExpressionAttributeValues: { ":gpk": Keys.freeeRefreshIndex, ":cutoff": cutoff },
      },
      undefined,
      "freee connections due for refresh",
    );
    return items.map((item) => {
      const { tokens: _tokens, cipher: _cipher, ...meta } = this.parse(item);
      return meta;
    });
  }

  private async read(teamId: string): Promise<Stored | undefined> {
    let item: Record<string, unknown> | undefined;
    try {
      const out = await this.doc.send(
        new GetCommand({ TableName: this.tableName, Key: Keys.freeeConnection(teamId), ConsistentRead: true }),
      );
      item = out.Item;
    } catch (err) {
      throw translateDynamoError(err, "freee connection get");
    }
    // Disconnected by an admin (lib/store/freee-disconnect.ts): no tokens, the same as never connected.
    return item === undefined || item.status === DISCONNECTED ? undefined : this.parse(item);
  }

  private parse(item: unknown): Stored {
    return parseRecord(StoredSchema, item, "freee connection");
  }

  private async encrypt(teamId: string, tokens: FreeeTokens): Promise<string> {
    registerSecret(tokens.accessToken);
    registerSecret(tokens.refreshToken);
    return this.cipher.encrypt(JSON.stringify({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken }), { teamId });
  }

  private async decode(stored: Stored): Promise<FreeeConnection> {
    const plain = await this.cipher.decrypt(stored.tokens, { teamId: stored.teamId });
    const secret = SecretSchema.safeParse(JSON.parse(plain));
    if (!secret.success) throw new MalformedOutputError("decrypted freee tokens have an unexpected shape");
    registerSecret(secret.data.accessToken);
    registerSecret(secret.data.refreshToken);
    const { tokens: _tokens, cipher: _cipher, ...meta } = stored;
    return { ...meta, ...secret.data };
  }
}
