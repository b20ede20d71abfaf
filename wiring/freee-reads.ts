import { intEnv } from "../lib/core/config/env";
import { FreeeClient } from "../lib/freee/client";
import { loadFreeeAppCredentials, loadFreeeEndpoints } from "../lib/freee/config";
import { FreeeConnectionStore } from "../lib/store/freee-connections";
import { PendingTokenStore } from "../lib/store/pending-freee-tokens";
import { createTokenCipher } from "../lib/store/token-cipher";
import { FreeeTokenEndpoint } from "../lib/freee/token-endpoint";
import { PREVIEW_CLIENT } from "../lib/preview/reader";
import type { Wiring } from "./base-deps";

/**
 * freee reads with the workspace's connection (the preview), built as the MCP server builds its clients
 * (wiring/freee-mcp.ts): the same connection, token refresh and lease, but with the client's own retries
 * off, because the preview is a state of the pipeline and its Retry rows are the only retry policy.
 */
export async function withFreeeReads(w: Wiring): Promise<Wiring> {
  const cipher = createTokenCipher(w.env);
  const connections = new FreeeConnectionStore(w.doc, w.tableName, cipher);
  const pending = new PendingTokenStore(w.doc, w.tableName, cipher);
  const endpoints = loadFreeeEndpoints(w.env);
  const tokenEndpoint = new FreeeTokenEndpoint(endpoints.oauthBaseUrl, await loadFreeeAppCredentials(w.env));
  const requestTimeoutMs = intEnv("FREEE_READ_TIMEOUT_MS", PREVIEW_CLIENT.requestTimeoutMs, w.env);
  const logger = w.deps.log;
  const freee = (teamId: string) => new FreeeClient({ teamId, store: connections, pending, tokenEndpoint, apiBaseUrl: endpoints.apiBaseUrl, logger, ...PREVIEW_CLIENT, requestTimeoutMs });
  return { ...w, deps: { ...w.deps, freee } };
}
