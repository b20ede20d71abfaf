import { randomBytes } from "node:crypto";
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { intEnv, optionalEnv, requireEnv, type Env } from "../config/env";
import { resolveSecret } from "../config/secrets";
import { FatalConfigError, MalformedOutputError } from "../errors/taxonomy";
import { createDocumentClient } from "../store/dynamo-client";
import { isConditionFailure, translateDynamoError } from "../store/conditional";
import { Keys, TABLE_KEYS } from "../store/table";
import type { ConnectionStatus } from "./connection-store";
import { DISCONNECTED, disconnectFreee } from "./disconnect";
import { signState, type SignedClaims } from "./signed-state";

/** The signed App Home link to /freee/connect (the web Lambda verifies it: lib/freee/oauth.ts). */
export interface ConnectLinkSettings {
  /** Where /freee/connect is served (the web Lambda's URL, or the custom domain in front of it). */
  publicBaseUrl: string;
  stateSecret: string;
  ttlSeconds: number;
}

/**
 * A connect link lives at most this long: it is single-use (OneTimeUses) and republished with App Home on every
 * open, so a short life costs nothing, while a link copied out of Slack is useless soon.
 */
export const MAX_CONNECT_LINK_TTL_SECONDS = 10 * 60;

/** A configured lifetime, never longer than MAX_CONNECT_LINK_TTL_SECONDS. */
export function connectLinkTtl(seconds: number): number {
  return Math.min(seconds, MAX_CONNECT_LINK_TTL_SECONDS);
}

export function buildConnectLink(settings: ConnectLinkSettings, teamId: string, userId: string, nowSeconds: number, options: { companyId?: number } = {}): string {
  // `n` names this link: /freee/connect marks it used (OneTimeUses), so it opens one browser's flow once.
  const claims: SignedClaims = {
    t: teamId,
    u: userId,
    exp: nowSeconds + connectLinkTtl(settings.ttlSeconds),
    n: randomBytes(12).toString("base64url"),
    ...(options.companyId === undefined ? {} : { c: options.companyId }),
  };
  const url = new URL(`${settings.publicBaseUrl.replace(/\/+$/, "")}/freee/connect`);
  url.searchParams.set("team", teamId);
  url.searchParams.set("user", userId);
  url.searchParams.set("sig", signState("freee_connect", claims, settings.stateSecret));
  return url.toString();
}

/**
 * Connect links and OAuth states are single-use: the first use writes a marker under the workspace (conditional
 * PutItem, kept until the link or state expires, then removed by TTL); a second use finds it and is refused.
 */
export class OneTimeUses {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** True for the first use of `id`, false for any later one. */
  async consume(teamId: string, kind: "link" | "state", id: string, expiresAtSeconds: number, at: Date): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...Keys.freeeOneTimeUse(teamId, kind, id), recordType: "freee_one_time_use", teamId, usedAt: at.toISOString(), [TABLE_KEYS.ttlAttribute]: expiresAtSeconds + 60 },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw translateDynamoError(err, `freee ${kind} use`);
    }
  }
}

export type HomeConnectionStatus = { status: "connected" | "reauth_required" | "not_connected"; companyName?: string };

const STATUSES: readonly ConnectionStatus[] = ["active", "reauth_required"];

/**
 * App Home's view of a workspace's freee connection: status and company name, read without the tokens (a
 * projection of the connection item; no decryption, no token endpoint). The Slack Lambda needs only this, so
 * it does not carry the OAuth flow, the token cipher or their schemas.
 */
export async function readConnectionStatus(doc: DynamoDBDocumentClient, tableName: string, teamId: string): Promise<HomeConnectionStatus> {
  let item: Record<string, unknown> | undefined;
  try {
    const out = await doc.send(
      new GetCommand({
        TableName: tableName,
        Key: Keys.freeeConnection(teamId),
        ProjectionExpression: "#s, companyName",
        ExpressionAttributeNames: { "#s": "status" },
      }),
    );
    item = out.Item;
  } catch (err) {
    throw translateDynamoError(err, "freee connection status");
  }
  if (item === undefined || item.status === DISCONNECTED) return { status: "not_connected" };
  const status = item.status as ConnectionStatus;
  if (!STATUSES.includes(status)) throw new MalformedOutputError("stored freee connection has an unknown status", { details: { teamId } });
  const companyName = typeof item.companyName === "string" ? item.companyName : undefined;
  return { status: status === "active" ? "connected" : "reauth_required", ...(companyName === undefined ? {} : { companyName }) };
}

/**
 * The App Home side of freee, from settings: TABLE_NAME, FREEE_STATE_SECRET (or _SECRET_ARN), and where the
 * connect page lives — FREEE_CONNECT_BASE_URL (the web Lambda's URL) or PUBLIC_BASE_URL. Built once per
 * container; a failed build is not cached.
 */
export function freeeHomePortFromEnv(env: Env = process.env, doc?: DynamoDBDocumentClient) {
  let settings: Promise<ConnectLinkSettings> | undefined;
  const load = (): Promise<ConnectLinkSettings> => {
    settings ??= (async () => {
      const publicBaseUrl = optionalEnv("FREEE_CONNECT_BASE_URL", env) ?? optionalEnv("PUBLIC_BASE_URL", env);
      if (publicBaseUrl === undefined) {
        throw new FatalConfigError("missing setting FREEE_CONNECT_BASE_URL (or PUBLIC_BASE_URL)", { details: { setting: "FREEE_CONNECT_BASE_URL" } });
      }
      return { publicBaseUrl, stateSecret: await resolveSecret("FREEE_STATE_SECRET", env), ttlSeconds: connectLinkTtl(intEnv("FREEE_CONNECT_LINK_TTL_SECONDS", MAX_CONNECT_LINK_TTL_SECONDS, env)) };
    })().catch((err: unknown) => {
      settings = undefined;
      throw err;
    });
    return settings;
  };
  let client = doc;
  return {
    buildConnectUrl: async (teamId: string, userId: string) => buildConnectLink(await load(), teamId, userId, Math.floor(Date.now() / 1000)),
    getConnectionStatus: (teamId: string) => readConnectionStatus((client ??= createDocumentClient(env)), requireEnv("TABLE_NAME", env), teamId),
    // The caller (App Home) has checked that `by` is an admin of the workspace.
    disconnect: (teamId: string, by: string) => disconnectFreee((client ??= createDocumentClient(env)), requireEnv("TABLE_NAME", env), { teamId, by, at: new Date().toISOString() }),
  };
}
