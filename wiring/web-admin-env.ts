import { randomBytes } from "node:crypto";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Logger } from "@aws-lambda-powertools/logger";
import { intEnv, optionalEnv, type Env } from "../lib/core/config/env";
import { resolveSecret } from "../lib/core/config/secrets";
import type { AdminDirectory, TeamSettingsStore } from "../lib/ingress/actions";
import type { FreeePort } from "../lib/ingress/freee-port";
import { createWebClient } from "../lib/slack-api/web-client";
import type { BotTokenResolver } from "../lib/slack-api/bot-token";
import { UsergroupDirectory } from "../lib/ingress/usergroups";
import { listTasksInPeriod } from "../lib/store/admin-reads";
import { AuditLog } from "../lib/store/audit-log";
import type { DynamoInstallationStore } from "../lib/store/installations";
import { ItemTable } from "../lib/store/item-table";
import { TaskStore } from "../lib/store/task-store";
import { WriteOnceLedger } from "../lib/store/write-ledger";
import { RecordNotFoundError } from "../lib/core/errors/taxonomy";
import { createWebAdmin } from "../lib/web-admin/app";
import { SLACK_OPENID_DEFAULTS, SlackOpenId } from "../lib/web-admin/openid";
import { SlackPeople } from "../lib/web-admin/people";
import { roleResolver } from "../lib/web-admin/roles";
import { CookieSigner, MIN_SECRET_LENGTH } from "../lib/web-admin/session";

export interface WebAdminWiring {
  doc: DynamoDBDocumentClient;
  tableName: string;
  installations: DynamoInstallationStore;
  admins: AdminDirectory;
  settings: TeamSettingsStore;
  freee: FreeePort;
  /** The workspaces' bot tokens (the approval policy's user groups are asked with them). */
  tokens: BotTokenResolver;
  log: Logger;
}

/**
 * The web admin from the environment (docs/web-admin.md): Sign in with Slack with SLACK_OPENID_CLIENT_ID /
 * SLACK_OPENID_CLIENT_SECRET (default: the app's SLACK_CLIENT_ID / SLACK_CLIENT_SECRET), Slack's endpoints
 * overridable by SLACK_OPENID_AUTHORIZE_URL / _TOKEN_URL / _JWKS_URL / _ISSUER (the fake Slack's in the sandbox),
 * the callback at `<PUBLIC_BASE_URL>/login/callback`; cookies signed with keys derived from WEB_SESSION_SECRET
 * (default: SLACK_STATE_SECRET, the web Lambda's own). Without a client or a secret, /login says sign-in is not set up.
 * 設定's member and user group lists are kept WEB_ADMIN_PEOPLE_CACHE_SECONDS (default 60) per warm instance.
 */
export async function createWebAdminFromEnv(env: Env, w: WebAdminWiring): Promise<(request: Request) => Promise<Response>> {
  const root = await firstSecret(["WEB_SESSION_SECRET", "SLACK_STATE_SECRET"], env);
  // A root too short to key a session with leaves sign-in off (logged) rather than the install and freee pages down.
  const secret = root !== undefined && root.length >= MIN_SECRET_LENGTH ? root : undefined;
  const clientId = (await firstSecret(["SLACK_OPENID_CLIENT_ID", "SLACK_CLIENT_ID"], env)) ?? undefined;
  const clientSecret = (await firstSecret(["SLACK_OPENID_CLIENT_SECRET", "SLACK_CLIENT_SECRET"], env)) ?? undefined;
  const base = optionalEnv("PUBLIC_BASE_URL", env)?.replace(/\/+$/, "");
  const openId =
    secret === undefined || clientId === undefined || clientSecret === undefined || base === undefined
      ? undefined
      : new SlackOpenId({
          clientId,
          clientSecret,
          redirectUri: `${base}/login/callback`,
          authorizeUrl: optionalEnv("SLACK_OPENID_AUTHORIZE_URL", env) ?? SLACK_OPENID_DEFAULTS.authorizeUrl,
          tokenUrl: optionalEnv("SLACK_OPENID_TOKEN_URL", env) ?? SLACK_OPENID_DEFAULTS.tokenUrl,
          jwksUrl: optionalEnv("SLACK_OPENID_JWKS_URL", env) ?? SLACK_OPENID_DEFAULTS.jwksUrl,
          issuer: optionalEnv("SLACK_OPENID_ISSUER", env) ?? SLACK_OPENID_DEFAULTS.issuer,
        });
  if (openId === undefined) w.log.warn("web admin sign-in is not configured", { hasSecret: secret !== undefined, secretTooShort: root !== undefined && secret === undefined, hasClient: clientId !== undefined && clientSecret !== undefined, hasBaseUrl: base !== undefined });
  const table = new ItemTable(w.doc, w.tableName);
  const store = new TaskStore(w.doc, w.tableName);
  const ledger = new WriteOnceLedger(w.doc, w.tableName);
  const app = createWebAdmin({
    // No secret: nobody can sign in, so no cookie can verify either (a key of this instance alone).
    signer: new CookieSigner(secret ?? randomBytes(32).toString("hex")),
    openId,
    isInstalled: installedCheck(env, w.installations),
    roleOf: roleResolver(w.admins, new UsergroupDirectory(w.tokens, (token) => createWebClient(token, env))),
    reads: {
      tasksInPeriod: (q) => listTasksInPeriod(table, q),
      history: (taskId) =>
        store.loadHistory(taskId).catch((err: unknown) => {
          if (err instanceof RecordNotFoundError) return undefined;
          throw err;
        }),
      writes: (taskId) => ledger.listForTask(taskId),
      audit: (teamId, window) => store.listAuditByTeam(teamId, window),
      settings: (teamId) => w.settings.get(teamId),
    },
    writes: {
      saveApprovers: (teamId, ids, by) => w.settings.save(teamId, ids, by),
      saveExternalTeams: (teamId, ids, by) => w.settings.saveAllowedExternalTeams(teamId, ids, by),
      savePolicy: (teamId, policy, by, seen) => w.settings.savePolicy(teamId, policy, by, seen),
    },
    freee: w.freee,
    people: new SlackPeople(w.tokens, (token) => createWebClient(token, env), w.log, { ttlMs: intEnv("WEB_ADMIN_PEOPLE_CACHE_SECONDS", 60, env) * 1000 }),
    audit: new AuditLog(store, w.log),
    log: w.log,
  });
  return (request) => Promise.resolve(app.fetch(request));
}

/** The first of the settings that is set (directly or by its _SECRET_ARN), or undefined when none is. */
async function firstSecret(names: string[], env: Env): Promise<string | undefined> {
  for (const name of names) {
    if (optionalEnv(name, env) !== undefined || optionalEnv(`${name}_SECRET_ARN`, env) !== undefined) return resolveSecret(name, env);
  }
  return undefined;
}

/**
 * Is the app installed in the id token's workspace: its installation in the table (multi-workspace mode), or the
 * workspace of SLACK_BOT_TOKEN (single-workspace mode, asked once with auth.test).
 */
function installedCheck(env: Env, installations: DynamoInstallationStore): (teamId: string) => Promise<boolean> {
  const botToken = optionalEnv("SLACK_BOT_TOKEN", env);
  if (botToken === undefined) return async (teamId) => (await installations.find({ teamId, isEnterpriseInstall: false }))?.bot?.token !== undefined;
  let team: Promise<string | undefined> | undefined;
  return async (teamId) => {
    team ??= createWebClient(botToken, env)
      .auth.test()
      .then((r) => r.team_id)
      .catch((err: unknown) => {
        team = undefined;
        throw err;
      });
    return (await team) === teamId;
  };
}
