import type { Logger } from "@aws-lambda-powertools/logger";
import type { FreeePort } from "./freee-port";
import { fromFetchResponse, text, toFetchRequest, type HttpRequest, type HttpResponse } from "./http/types";
import type { SlackEventsHandler } from "./slack-events";

/** The two browser pages of the Slack install (lib/ingress/oauth-routes.ts). */
export interface InstallRoutes {
  install(request: HttpRequest): Promise<HttpResponse>;
  callback(request: HttpRequest): Promise<HttpResponse>;
}

export interface IngressDeps {
  /** POST /slack/events (lib/ingress/slack-events.ts); absent on the web Lambda. */
  events?: SlackEventsHandler;
  /** Multi-workspace install routes; absent in single-workspace mode (SLACK_BOT_TOKEN) and on the Slack Lambda. */
  oauth?: InstallRoutes;
  /** The web admin (lib/web-admin): /admin…, /login…, POST /logout (its own 404 page below /admin); web Lambda only. */
  admin?: (request: Request) => Promise<Response>;
  /** freee's pages; the Slack Lambda has only App Home's status and link, so its routes are 404. */
  freee: FreeePort;
  log: Logger;
  /** Which Function URL this router is (`GET /healthz` says so: `npm run smoke` checks each URL is the right one). */
  name?: "ingress" | "web" | "local";
}

export type IngressHandler = (request: HttpRequest) => Promise<HttpResponse>;

export const NOT_FOUND = "ページが見つかりません";

/** Every route the router knows (the switch below); which Lambda serves which is its deps' doing. */
export const ROUTES = ["GET /healthz", "POST /slack/events", "GET /slack/install", "GET /slack/oauth_redirect", "GET /freee/connect", "GET /freee/callback", "GET /login", "GET /admin"] as const;

/** The web admin's paths (each page under /admin, the sign-in under /login, POST /logout). */
export function isAdminPath(path: string): boolean {
  return /^\/(admin|login)(\/|$)/.test(path) || path === "/logout";
}

/**
 * The router shared by the two Lambdas and the local dev server. The Slack Lambda (lambdas/ingress) serves
 * POST /slack/events: it answers within Slack's 3 s, so it carries neither the install flow nor freee's OAuth.
 * The web Lambda (lambdas/web) serves the browser pages: /slack/install, /slack/oauth_redirect, /freee/connect,
 * /freee/callback. Each bundle imports only its half (docs/bench.md); the local server mounts both. Both answer
 * GET /healthz (docs/slack.md lists the routes; test/commands/docs.test.ts holds the list to these routers).
 */
export function createIngress(deps: IngressDeps): IngressHandler {
  async function viaFetch(handler: ((r: Request) => Promise<Response>) | undefined, request: HttpRequest): Promise<HttpResponse> {
    if (handler === undefined) return text(404, NOT_FOUND);
    return fromFetchResponse(await handler(toFetchRequest(request)));
  }

  return async (request) => {
    try {
      if (deps.admin !== undefined && isAdminPath(request.path)) return await viaFetch(deps.admin, request);
      const route = `${request.method} ${request.path.replace(/\/+$/, "")}`;
      switch (route) {
        case "GET /healthz":
          // Touches no dependency: it says the function is deployed and wired, not that Slack or freee answer.
          return { statusCode: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ ok: true, function: deps.name ?? "local" }) };
        case "POST /slack/events":
          return deps.events === undefined ? text(404, NOT_FOUND) : await deps.events(request);
        case "GET /slack/install":
          return deps.oauth === undefined ? text(404, NOT_FOUND) : await deps.oauth.install(request);
        case "GET /slack/oauth_redirect":
          return deps.oauth === undefined ? text(404, NOT_FOUND) : await deps.oauth.callback(request);
        case "GET /freee/connect":
          return await viaFetch(deps.freee.connect, request);
        case "GET /freee/callback":
          return await viaFetch(deps.freee.callback, request);
        default:
          return text(404, NOT_FOUND);
      }
    } catch (err) {
      // Deliberate 500: a transient fault (Slack redelivers events); the cause is in the log, not the response.
      deps.log.error("ingress request failed", {
        layer: "ingress",
        path: request.path,
        error_type: err instanceof Error ? err.name : "unknown",
        error_message: err instanceof Error ? err.message : String(err),
      });
      return text(500, "");
    }
  };
}
