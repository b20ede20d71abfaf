import { resolve } from "node:path";
import type { SFNClient } from "@aws-sdk/client-sfn";
import { optionalEnv, requireEnv, type Env } from "../../lib/core/config/env";
import { DEFAULT_LIMITS } from "../../lib/core/config/limits";
import { FatalConfigError } from "../../lib/core/errors/taxonomy";
import { freeeHomePortFromEnv } from "../../wiring/freee-home";
import { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { createFreeeOAuthFromEnv } from "../../wiring/freee-oauth";
import { createTokenCipher } from "../../lib/store/token-cipher";
import { createFreeeMcpHandlerFromEnv } from "../../wiring/freee-mcp";
import { toWebResponse } from "../../lib/mcp/http";
import { createLogger } from "../../lib/core/observability/logger";
import type { DefinedStep } from "../../lib/steps/step-handler";
import type { FreeePort } from "../../lib/ingress/freee-port";
import { fromFetchRequest, toFetchResponse } from "../../lib/ingress/http/types";
import { createAdminDirectory } from "../../wiring/admins-env";
import { TeamSettingsStore } from "../../lib/store/team-settings";
import { ONE_PERSON_POLICY } from "../../lib/core/domain/approval-policy";
import { createBotTokenResolver } from "../../lib/slack-api/bot-token";
import { createIngressFromEnv } from "../../wiring/ingress-env";
import { createWebAdminFromEnv } from "../../wiring/web-admin-env";
import { returnToAdmin } from "../../lib/web-admin/freee-return";
import { DynamoInstallationStore, installationCipher } from "../../lib/store/installations";
import { classifySlackError, createWebClient } from "../../lib/slack-api/web-client";
import { createDocumentClient } from "../../lib/store/dynamo-client";
import { TaskStore } from "../../lib/store/task-store";
import { limitsEnvironment } from "../../infra/settings";
import { PIPELINE_FUNCTIONS, RUN_FUNCTIONS, type StepFunctionName } from "../../infra/state-machines/functions";
import { localSfnClient } from "./local-sfn-client";
import { LocalStepFunctions, type LocalHandler } from "./local-step-functions";
import { startApprovalTimeouts } from "./approval-timeouts";
import { startStatusChangeRule, type StatusChangeRule } from "./status-change";
import { step as reconciler } from "../../lambdas/reconcile-execution/handler";
import { startLocalDynamo } from "./local-dynamo";
import { loadLocalSecrets } from "./local-secrets";
import { listenFetch, type FetchHandler } from "./node-http";
import { createSandbox } from "./sandbox-api";
import { startSandboxFaults, type SandboxFaults } from "../sandbox/fault-panel";
import { loadLayerSettings } from "../../lib/model/settings";
import { handleSfnRequest, isSfnRequest } from "./sfn-http-facade";
import type { FakeAnthropic } from "../fakes/anthropic/fake-anthropic";
import type { FakeFreee } from "../fakes/freee/fake-freee";
import type { FakeSlack } from "../fakes/slack/fake-slack";
import { asResponse, SANDBOX_CHANNELS, SANDBOX_NAMES, SANDBOX_BOT, SANDBOX_BOT_TOKEN, SANDBOX_COMPANY, SANDBOX_FREEE_CLIENT, SANDBOX_USER_ID, sandboxFreee, sandboxModel, sandboxSlack, SCRIPTED_MODEL_API_KEY } from "./sandbox-fakes";
import type { SlackWho } from "./slack-payloads";
import { synthesizeMachines, type SynthesizedMachines } from "./synth-definitions";

/**
 * `npm run dev` in one function: DynamoDB Local (persisted under DATA_DIR), the CDK-synthesized TaskPipeline and
 * ExecutionRun run locally with the real step handlers, a Step Functions HTTP facade for the ingress's SFNClient,
 * and ONE HTTP server with the Function URL routes (/slack/events, /slack/install, /slack/oauth_redirect,
 * /freee/connect, /freee/callback, /mcp). Whatever `.env` leaves out is played locally and labelled:
 * no Slack credentials → the sandbox page + the Slack fake; no ANTHROPIC_API_KEY → the Anthropic fake playing the
 * model; no FREEE_CLIENT_ID → the freee fake's seeded company (dev/fakes, the same fakes the tests use).
 */
export interface LocalStack {
  url: string;
  mode: { slack: "sandbox" | "single-workspace" | "multi-workspace"; model: "scripted" | "anthropic"; freee: "scripted" | "freee" };
  /** The environment the handlers were built with (secrets included: never log it). */
  env: Readonly<Record<string, string>>;
  machines: SynthesizedMachines;
  local: LocalStepFunctions;
  store: TaskStore;
  /** The sandbox's Slack (also set when SLACK_API_URL is given from outside: then undefined). */
  slack: FakeSlack | undefined;
  model: FakeAnthropic | undefined;
  freee: FakeFreee | undefined;
  /** Sandbox identity: who the page's clicks come from. */
  sandbox: SlackWho & { signingSecret: string };
  /** The EventBridge rule's stand-in: deliveries of FAILED / ABORTED executions to the reconciler. */
  reconciler: Pick<StatusChangeRule, "idle">;
  /** The sandbox's fault panel (dev/sandbox): with the Slack fake, the scripted model and the scripted freee. */
  faults: SandboxFaults | undefined;
  /** Sandbox with the real freee: the link that connects the sandbox workspace to your freee company. */
  freeeConnectUrl: string | undefined;
  close(): Promise<void>;
}

export interface LocalStackOptions {
  /**
   * The environment one consumer is built with — `ingress`, `mcp`, `oauth` or a step Lambda's folder name —
   * given the stack's (its own DynamoDB and Step Functions included). dev/chaos points the endpoints at its fault
   * proxies here. With this hook the step Lambdas call Step Functions over its HTTP API (SFN_ENDPOINT), as on AWS.
   */
  consumerEnv?: (consumer: string, env: Readonly<Record<string, string>>) => Record<string, string>;
}

export const SANDBOX_WHO = { teamId: SANDBOX_BOT.teamId, userId: SANDBOX_USER_ID, channelId: SANDBOX_CHANNELS.private, channelType: "group", appId: "ASANDBOX", botUserId: SANDBOX_BOT.botUserId } as const;

const DEFAULT_TABLE = "slack-mcp-agent-local";

export async function startLocalStack(input: Env = process.env, options: LocalStackOptions = {}): Promise<LocalStack> {
  let faults: SandboxFaults | undefined;
  const envOf = (consumer: string, base: Record<string, string>) => faults?.consumerEnv(consumer, base) ?? options.consumerEnv?.(consumer, base) ?? base;
  const log = createLogger("local-dev");
  const get = (name: string) => optionalEnv(name, input);
  const host = get("HOST") ?? "127.0.0.1";
  const port = intSetting("PORT", get("PORT"), 3000);
  // DATA_DIR=":memory:" keeps nothing on disk (the test suites use it).
  const dataDirSetting = get("DATA_DIR") ?? ".data";
  const dataDir = dataDirSetting === ":memory:" ? undefined : resolve(dataDirSetting);
  const tableName = get("TABLE_NAME") ?? DEFAULT_TABLE;
  const http = await listenFetch(host, port, log);
  const base = `http://${host}:${http.port}`;
  const publicBase = (get("PUBLIC_BASE_URL") ?? base).replace(/\/+$/, "");
  const secrets = loadLocalSecrets(dataDir);

  const slackMode = get("SLACK_BOT_TOKEN") !== undefined ? "single-workspace" : get("SLACK_CLIENT_ID") !== undefined ? "multi-workspace" : "sandbox";
  const modelMode = get("ANTHROPIC_API_KEY") !== undefined || get("ANTHROPIC_API_KEY_SECRET_ARN") !== undefined ? "anthropic" : "scripted";
  const freeeMode = get("FREEE_CLIENT_ID") !== undefined ? "freee" : "scripted";
  if (slackMode !== "sandbox" && get("SLACK_SIGNING_SECRET") === undefined) {
    await http.close();
    throw new FatalConfigError("SLACK_SIGNING_SECRET is required with Slack credentials (or remove them for the sandbox)", { details: { setting: "SLACK_SIGNING_SECRET" } });
  }
  // DYNAMODB_ENDPOINT: a DynamoDB that already runs (the test suite's); otherwise DynamoDB Local is started (Java 17).
  const dynamoEndpoint = get("DYNAMODB_ENDPOINT");
  const dynamo = await startLocalDynamo({ dataDir, tableName, ...(dynamoEndpoint === undefined ? {} : { endpoint: dynamoEndpoint }) }).catch(async (err: unknown) => {
    await http.close();
    throw err;
  });

  const slack = slackMode === "sandbox" && get("SLACK_API_URL") === undefined ? sandboxSlack() : undefined;
  // Slack's Tier 3 window for chat.update (50 a minute per channel), shrunk by suites that shrink time too.
  const slackWindow = get("SANDBOX_SLACK_RATE_WINDOW_MS");
  if (slackWindow !== undefined) slack?.setRateLimit("chat.update", { limit: 50, windowMs: intSetting("SANDBOX_SLACK_RATE_WINDOW_MS", slackWindow, 60_000), per: "channel" });
  // SANDBOX_AGENT_CLAIMS=done: the self-playing agent claims every run done (the chaos matrix's freee cells).
  const claims = get("SANDBOX_AGENT_CLAIMS") === "done" ? "done" : "honest";
  // 1.5 s a step: with ExecutionRun's 3 s poll, the card shows each step as it goes (a faster default finished a
  // whole plan between two polls, so the card went from 0 / N to 完了 in one update).
  const scripted = modelMode === "scripted" ? sandboxModel(intSetting("SANDBOX_STEP_DELAY_MS", get("SANDBOX_STEP_DELAY_MS"), 1_500), claims, () => faults?.takeSessionFault()) : undefined;
  const model = scripted?.api;
  const freee = freeeMode === "scripted" ? sandboxFreee() : undefined;
  if (freee !== undefined) freee.url = `${base}/sandbox/freee`; // the links freee gives (an invoice's report_url)

  const limits = {
    pollIntervalSeconds: intSetting("POLL_INTERVAL_SECONDS", get("POLL_INTERVAL_SECONDS"), DEFAULT_LIMITS.pollIntervalSeconds),
    runTimeoutSeconds: intSetting("RUN_TIMEOUT_SECONDS", get("RUN_TIMEOUT_SECONDS"), DEFAULT_LIMITS.runTimeoutSeconds),
    maxRegenerations: intSetting("MAX_REGENERATIONS", get("MAX_REGENERATIONS"), DEFAULT_LIMITS.maxRegenerations),
    maxReruns: intSetting("MAX_RERUNS", get("MAX_RERUNS"), DEFAULT_LIMITS.maxReruns),
    approvalTimeoutSeconds: intSetting("APPROVAL_TIMEOUT_SECONDS", get("APPROVAL_TIMEOUT_SECONDS"), DEFAULT_LIMITS.approvalTimeoutSeconds),
    warnChangePercent: intSetting("WARN_CHANGE_PERCENT", get("WARN_CHANGE_PERCENT"), DEFAULT_LIMITS.warnChangePercent),
    warnChangeYen: intSetting("WARN_CHANGE_YEN", get("WARN_CHANGE_YEN"), DEFAULT_LIMITS.warnChangeYen),
  };
  // The fault panel stands in front of the sandbox's own model and freee (dev/chaos brings its own proxies).
  if (slack !== undefined && model !== undefined && freee !== undefined && options.consumerEnv === undefined) {
    const layers = loadLayerSettings(input);
    faults = await startSandboxFaults(
      { anthropic: `${base}/sandbox/model`, freee: `${base}/sandbox/freee` },
      {
        layerTimeoutMs: { L1: layers.L1.timeoutMs, L2: layers.L2.timeoutMs, L3: layers.L3.timeoutMs },
        runTimeoutSeconds: limits.runTimeoutSeconds,
        previewReadTimeoutMs: intSetting("FREEE_READ_TIMEOUT_MS", get("FREEE_READ_TIMEOUT_MS"), 10_000),
      },
      slack,
    );
  }
  const admins = get("ADMIN_USER_IDS");
  const machines = synthesizeMachines({ ...limits, ...(admins === undefined ? {} : { adminUserIds: admins }) });

  const defined = Object.fromEntries(Object.entries(input).filter((e): e is [string, string] => e[1] !== undefined));
  const env: Record<string, string> = {
    ...defined,
    ...limitsEnvironment(machines.settings),
    AWS_REGION: get("AWS_REGION") ?? "us-east-1",
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    SFN_ENDPOINT: `${base}/sfn`,
    TASK_PIPELINE_ARN: machines.taskPipelineArn,
    EXECUTION_RUN_ARN: machines.executionRunArn,
    PUBLIC_BASE_URL: publicBase,
    MCP_SERVER_URL: get("MCP_SERVER_URL") ?? `${publicBase}/mcp`,
    MCP_BEARER_SECRET: get("MCP_BEARER_SECRET") ?? secrets.mcpBearerSecret,
    FREEE_STATE_SECRET: get("FREEE_STATE_SECRET") ?? secrets.freeeStateSecret,
    // The web admin's cookie keys derive from it (HMAC per purpose); a local root is enough for a local stack.
    WEB_SESSION_SECRET: get("WEB_SESSION_SECRET") ?? secrets.freeeStateSecret,
    ...(get("TOKEN_KMS_KEY_ID") === undefined ? { FREEE_TOKEN_LOCAL_KEY: get("FREEE_TOKEN_LOCAL_KEY") ?? secrets.freeeTokenLocalKey } : {}),
  };
  if (slackMode === "sandbox") {
    Object.assign(env, { SLACK_BOT_TOKEN: SANDBOX_BOT_TOKEN, SLACK_BOT_USER_ID: SANDBOX_WHO.botUserId, SLACK_SIGNING_SECRET: get("SLACK_SIGNING_SECRET") ?? secrets.sandboxSigningSecret });
    if (slack !== undefined) {
      env.SLACK_API_URL = slack.url = `${base}/sandbox/slack/api/`; // also where its upload URLs point
      // Files shared on the page are served under the sandbox's Slack (the MCP server fetches an upload's file there).
      slack.files.baseUrl = `${base}/sandbox/slack`;
      env.SLACK_FILES_ORIGIN = new URL(base).origin;
      // Sign in to the web admin through the fake Slack's OpenID endpoints (no credentials).
      Object.assign(env, {
        SLACK_OPENID_CLIENT_ID: get("SLACK_OPENID_CLIENT_ID") ?? "fake-slack-client-id",
        SLACK_OPENID_CLIENT_SECRET: get("SLACK_OPENID_CLIENT_SECRET") ?? "fake-slack-client-secret",
        SLACK_OPENID_AUTHORIZE_URL: `${base}/sandbox/slack/openid/connect/authorize`,
        SLACK_OPENID_TOKEN_URL: `${base}/sandbox/slack/api/openid.connect.token`,
        SLACK_OPENID_JWKS_URL: `${base}/sandbox/slack/openid/connect/keys`,
      });
    }
  }
  if (model !== undefined) Object.assign(env, { ANTHROPIC_BASE_URL: `${base}/sandbox/model`, ANTHROPIC_API_KEY: SCRIPTED_MODEL_API_KEY });
  if (freee !== undefined) {
    Object.assign(env, { FREEE_API_BASE_URL: `${base}/sandbox/freee`, FREEE_OAUTH_BASE_URL: `${base}/sandbox/freee`, FREEE_CLIENT_ID: SANDBOX_FREEE_CLIENT.id, FREEE_CLIENT_SECRET: SANDBOX_FREEE_CLIENT.secret });
  }
  // L4 may talk to another endpoint than L1–L3 (e.g. the end-to-end suite's scripted Managed Agents).
  const agentEnv = { ...env, ...(get("MANAGED_AGENTS_BASE_URL") === undefined ? {} : { ANTHROPIC_BASE_URL: get("MANAGED_AGENTS_BASE_URL")! }) };

  // --- the state machines, with the real handlers (as test/support/local-sfn.ts wires them)
  let local!: LocalStepFunctions;
  const sfn = { send: (command: never) => localSfnClient(local).send(command) } as unknown as SFNClient;
  const handlers = {} as Record<StepFunctionName, LocalHandler>;
  for (const name of [...PIPELINE_FUNCTIONS, ...RUN_FUNCTIONS]) {
    const mod = (await import(`../../lambdas/${name}/handler.ts`)) as { step: DefinedStep<unknown> };
    const deps = await mod.step.wire(envOf(name, mod.step.needs.agent ? agentEnv : env));
    handlers[name] = mod.step.withDeps(options.consumerEnv === undefined ? { ...deps, sfn } : deps);
  }
  const pollMs = limits.pollIntervalSeconds * 1000;
  const retryMs = intSetting("LOCAL_RETRY_MS", get("LOCAL_RETRY_MS"), 1000);
  // The deployed EventBridge rule: a machine that ended FAILED / ABORTED goes to the reconciler.
  const reconcile = reconciler.withDeps(await reconciler.wire(envOf(reconciler.service, agentEnv)));
  const statusRule = startStatusChangeRule({ deliver: reconcile, pauseMs: Math.max(100, retryMs * 10), log });
  local = new LocalStepFunctions({
    machines,
    handlers,
    waitMs: intSetting("LOCAL_WAIT_MS", get("LOCAL_WAIT_MS"), pollMs),
    retryMs,
    onEnded: (execution) => statusRule.onEnded(execution),
  });

  const stopApprovalTimeouts = startApprovalTimeouts(local, limits.approvalTimeoutSeconds * 1000);

  // --- the Function URL entry points
  const doc = createDocumentClient(env);
  const store = new TaskStore(doc, tableName);
  if (freee !== undefined) {
    // The workspace is connected to the scripted company (re-seeded each start: its tokens live in memory): the
    // sandbox workspace, or in single-workspace mode the bot token's own workspace (asked with auth.test).
    const teamId = slackMode === "single-workspace" ? await workspaceOf(env) : slackMode === "sandbox" ? SANDBOX_WHO.teamId : undefined;
    if (teamId !== undefined) {
      const tokens = freee.issueTokens();
      await new FreeeConnectionStore(doc, tableName, createTokenCipher(env)).save({
        teamId,
        tokens: { ...tokens, accessTokenExpiresAt: new Date(Date.now() + 6 * 3600_000).toISOString(), scope: "read write" },
        companyId: SANDBOX_COMPANY.id,
        companyName: SANDBOX_COMPANY.name,
        connectedBy: "local-dev",
      });
    }
  }
  // LOCAL_APPROVAL_POLICY=one_person: the local workspace (the sandbox's, or the bot token's own) is one person's —
  // the requester approves their own writes, nobody is asked for a second approval — set at each start, for the
  // suites that act as a single user. Without it the workspace's stored policy (or the defaults) stands.
  if (get("LOCAL_APPROVAL_POLICY") === "one_person") {
    const teamId = slackMode === "sandbox" ? SANDBOX_WHO.teamId : slackMode === "single-workspace" ? await workspaceOf(env) : undefined;
    if (teamId !== undefined) {
      const settings = new TeamSettingsStore(doc, tableName);
      await settings.savePolicy(teamId, ONE_PERSON_POLICY, "local-dev", (await settings.get(teamId)).approvalPolicy.updatedAt);
    }
  }
  // The connect flow asks who is an admin as the web Lambda does (settings, ADMIN_USER_IDS, users.info).
  const oauthEnv = envOf("oauth", env);
  const oauthDoc = oauthEnv === env ? doc : createDocumentClient(oauthEnv);
  const installations = new DynamoInstallationStore(oauthDoc, tableName, { cipher: installationCipher(oauthEnv) });
  const botTokens = createBotTokenResolver(installations, oauthEnv);
  const directory = createAdminDirectory(oauthEnv, { doc: oauthDoc, tableName, tokens: botTokens, log });
  const oauth = await createFreeeOAuthFromEnv(oauthEnv, { admins: directory.admins });
  // App Home's disconnect is the ingress Lambda's own (lambdas/ingress: freeeHomePortFromEnv), on this stack's table.
  const { disconnect } = freeeHomePortFromEnv(oauthEnv, oauthDoc);
  const freeePort: FreeePort = { connect: oauth.connect, callback: returnToAdmin(oauth.callback), buildConnectUrl: oauth.buildConnectUrl, getConnectionStatus: oauth.getConnectionStatus, disconnect };
  const ingressEnv = envOf("ingress", env);
  // The web admin as the web Lambda serves it (/admin, /login), on the same port.
  const admin = await createWebAdminFromEnv(oauthEnv, { doc: oauthDoc, tableName, installations, admins: directory.admins, settings: directory.settings, freee: freeePort, tokens: botTokens, log });
  const ingress = await createIngressFromEnv(ingressEnv, { doc: ingressEnv === env ? doc : createDocumentClient(ingressEnv), freee: freeePort, admin });
  const freeeConnectUrl = slackMode === "sandbox" && freee === undefined ? await oauth.buildConnectUrl(SANDBOX_WHO.teamId, SANDBOX_WHO.userId) : undefined;
  // Tests run freee's backoffs and rate-limit waits in milliseconds: each wait divided by this (default 1: real time).
  const freeeWaitDivisor = Math.max(1, intSetting("LOCAL_FREEE_WAIT_DIVISOR", get("LOCAL_FREEE_WAIT_DIVISOR"), 1));
  const mcp = await createFreeeMcpHandlerFromEnv(envOf("mcp", env), freeeWaitDivisor === 1 ? {} : { sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms / freeeWaitDivisor)) });
  const labels = [
    slackMode === "sandbox" ? "Slack: サンドボックス（ローカル記録）" : `Slack: ${slackMode}`,
    model === undefined ? "モデル: Anthropic API" : "モデル: スクリプト（ANTHROPIC_API_KEY 未設定）",
    freee === undefined ? "freee: 実 API" : `freee: スクリプトの会社（${SANDBOX_COMPANY.name}）`,
  ];
  const sandbox = { ...SANDBOX_WHO, signingSecret: requireEnv("SLACK_SIGNING_SECRET", env) };
  const sandboxApi = slack === undefined ? undefined : createSandbox({ slack, who: SANDBOX_WHO, publicChannelId: SANDBOX_CHANNELS.public, signingSecret: sandbox.signingSecret, eventsUrl: `${base}/slack/events`, labels, names: SANDBOX_NAMES, ...(faults === undefined ? {} : { faults }) });

  const route: FetchHandler = async (request) => {
    const path = new URL(request.url).pathname;
    if (isSfnRequest(request)) return handleSfnRequest(local, request);
    if (path === "/mcp" || path.startsWith("/mcp/")) return toWebResponse(await mcp(request));
    if (path.startsWith("/sandbox/slack/api/") && slack !== undefined) return slack.handle(request, path.slice("/sandbox/slack/api/".length));
    if (path.startsWith("/sandbox/slack/files-pri/") && slack !== undefined) return slack.handle(request);
    if (path.startsWith("/sandbox/slack/openid/connect/") && slack !== undefined) return slack.handle(request, path.slice("/sandbox/slack/".length));
    if (path.startsWith("/sandbox/model/") && model !== undefined) return model.handle(request, path.slice("/sandbox/model".length));
    if (path.startsWith("/sandbox/freee/") && freee !== undefined) return asResponse(await freee.handle(request, path.slice("/sandbox/freee".length)));
    if ((path === "/sandbox" || path.startsWith("/sandbox/")) && sandboxApi !== undefined) return sandboxApi(request, path);
    if (request.method === "GET" && path === "/") {
      return Response.redirect(`${base}${sandboxApi === undefined ? "/healthz" : "/sandbox"}`, 302);
    }
    if (request.method === "GET" && path === "/healthz") return Response.json({ ok: true, mode: { slack: slackMode, model: modelMode, freee: freeeMode } });
    return toFetchResponse(await ingress(await fromFetchRequest(request)));
  };
  http.setHandler(route);

  return {
    url: base,
    mode: { slack: slackMode, model: modelMode, freee: freeeMode },
    env,
    machines,
    local,
    store,
    slack,
    model,
    freee,
    sandbox,
    freeeConnectUrl,
    faults,
    reconciler: statusRule,
    async close() {
      stopApprovalTimeouts();
      // Executions aborted by the shutdown are not failures to reconcile.
      await statusRule.drain();
      for (const execution of local.executions.values()) if (execution.status === "RUNNING") execution.abort();
      await Promise.all([...local.executions.values()].map((e) => e.done));
      await scripted?.stop();
      await faults?.close();
      await http.close();
      doc.destroy();
      await dynamo.close();
    },
  };
}

/** The workspace of SLACK_BOT_TOKEN (auth.test); a token Slack refuses fails the start, loudly. */
async function workspaceOf(env: Env): Promise<string> {
  let teamId: string | undefined;
  try {
    teamId = (await createWebClient(requireEnv("SLACK_BOT_TOKEN", env), env).auth.test()).team_id;
  } catch (err) {
    throw classifySlackError(err, "auth.test (SLACK_BOT_TOKEN)");
  }
  if (teamId === undefined) throw new FatalConfigError("auth.test did not name the bot token's workspace", { details: { setting: "SLACK_BOT_TOKEN" } });
  return teamId;
}

function intSetting(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new FatalConfigError(`setting ${name} must be a non-negative integer`, { details: { setting: name } });
  return value;
}
