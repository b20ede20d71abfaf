import type { IncomingMessage, ServerResponse } from "node:http";
import { InstallProvider, type InstallationStore, type InstallURLOptions } from "@slack/oauth";
import type { Logger } from "@aws-lambda-powertools/logger";
import { slackLogger } from "./slack-logger";
import type { HttpRequest, HttpResponse } from "./http/types";

export interface OAuthSettings {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  scopes: string[];
  /** The stack's `<function url>/slack/oauth_redirect`; omitted → the app's configured redirect URL. */
  redirectUri?: string;
  /** Slack Web API base (tests: the recording server). */
  slackApiUrl?: string;
}

export const BOT_SCOPES = [
  "app_mentions:read",
  "channels:history",
  "groups:history",
  "im:history",
  "mpim:history",
  // conversations.info: whether a channel is public (results and cards with HR personal data are not posted
  // there: lib/ingress/channel-privacy.ts), for each kind of conversation the app is in.
  "channels:read",
  "groups:read",
  "im:read",
  "mpim:read",
  // conversations.open: the requester's DM, where such results go instead.
  "im:write",
  "chat:write",
  // usergroups.users.list / usergroups.list: the approval policy's approver groups (lib/ingress/usergroups.ts).
  "usergroups:read",
  // users.info: Slack's own is_admin / is_owner count as workspace admins (lib/ingress/user-roles.ts).
  "users:read",
  // files.info and the file's download: a receipt shared with a request, for its approved file-box upload.
  "files:read",
  // files.uploadV2: a long read result goes to the thread as a CSV file (the Execution card shows its first rows).
  "files:write",
];

/**
 * `/slack/install` and `/slack/oauth_redirect` over the Lambda: @slack/oauth's InstallProvider (state in a signed
 * cookie, oauth.v2.access, installation stored through the InstallationStore) driven by a minimal in-memory
 * stand-in for Node's req/res, since a Function URL has no socket.
 */
export class OAuthRoutes {
  private readonly provider: InstallProvider;
  private readonly installOptions: InstallURLOptions;

  constructor(settings: OAuthSettings, store: InstallationStore, private readonly log: Logger) {
    this.installOptions = { scopes: settings.scopes, ...(settings.redirectUri === undefined ? {} : { redirectUri: settings.redirectUri }) };
    this.provider = new InstallProvider({
      clientId: settings.clientId,
      clientSecret: settings.clientSecret,
      stateSecret: settings.stateSecret,
      installationStore: store,
      directInstall: true,
      logger: slackLogger(log, "oauth"),
      installUrlOptions: this.installOptions,
      ...(settings.slackApiUrl === undefined ? {} : { clientOptions: { slackApiUrl: settings.slackApiUrl } }),
    });
  }

  async install(request: HttpRequest): Promise<HttpResponse> {
    const { req, res, result } = nodePair(request);
    await this.provider.handleInstallPath(req, res, undefined, this.installOptions);
    return result();
  }

  async callback(request: HttpRequest): Promise<HttpResponse> {
    const { req, res, result } = nodePair(request);
    await this.provider.handleCallback(req, res, {
      success: (installation, _options, _req, response) => {
        this.log.info("Slack app installed", { teamId: installation.team?.id, enterpriseId: installation.enterprise?.id });
        page(response, 200, "インストールが完了しました", "Slack に戻って、アプリにメッセージを送ってください。");
      },
      failure: (error, _options, _req, response) => {
        this.log.warn("Slack install failed", { error_type: error.code, error_message: error.message });
        page(response, 400, "インストールに失敗しました", "もう一度インストールしてください。");
      },
    });
    return result();
  }
}

function page(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, { "Content-Type": "text/html; charset=utf-8" });
  res.end(`<!doctype html><html lang="ja"><meta charset="utf-8"><title>${title}</title><h1>${title}</h1><p>${body}</p></html>`);
}

/** Just enough of IncomingMessage / ServerResponse for InstallProvider (url, headers, setHeader, writeHead, end). */
function nodePair(request: HttpRequest) {
  const req = { url: `${request.path}${request.query === "" ? "" : `?${request.query}`}`, headers: { host: "localhost", ...request.headers }, method: request.method };
  let status = 200;
  const headers: Record<string, string | string[]> = {};
  let body = "";
  const res = {
    getHeader: (name: string) => headers[name.toLowerCase()],
    setHeader(name: string, value: string | string[]) {
      headers[name.toLowerCase()] = value;
      return res;
    },
    writeHead(code: number, extra?: Record<string, string>) {
      status = code;
      for (const [k, v] of Object.entries(extra ?? {})) headers[k.toLowerCase()] = v;
      return res;
    },
    end(chunk?: string) {
      if (chunk !== undefined) body += chunk;
      return res;
    },
  };
  const result = (): HttpResponse => {
    const setCookie = headers["set-cookie"];
    const plain: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (k !== "set-cookie") plain[k] = Array.isArray(v) ? v.join(", ") : v;
    const cookies = setCookie === undefined ? undefined : Array.isArray(setCookie) ? setCookie : [setCookie];
    return { statusCode: status, headers: plain, ...(cookies === undefined ? {} : { cookies }), body };
  };
  return { req: req as unknown as IncomingMessage, res: res as unknown as ServerResponse, result };
}
