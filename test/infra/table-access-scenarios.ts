import { SendTaskFailureCommand, SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mockClient } from "aws-sdk-client-mock";
import { expect } from "vitest";
import { TeamSettingsStore } from "../../lib/store/team-settings";
import { issueMcpBearer } from "../../lib/mcp/bearer";
import { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { LocalTokenCipher } from "../../lib/store/token-cipher";
import { createFreeeMcpHandlerFromEnv } from "../../wiring/freee-mcp";
import { plainFunctionUrlHandler } from "../../lib/mcp/function-url";
import { fromFunctionUrlEvent } from "../../lib/ingress/http/types";
import { freeeHomePortFromEnv } from "../../wiring/freee-home";
import { createSlackEventsFromEnv } from "../../wiring/events-env";
import { createIngress } from "../../lib/ingress/ingress";
import { createWebFromEnv } from "../../wiring/web-env";
import { HomeActionIds } from "../../lib/ingress/home";
import { createDocumentClient } from "../../lib/store/dynamo-client";
import { Keys } from "../../lib/store/table";
import { TaskStore } from "../../lib/store/task-store";
import type { ProcessStep } from "../../lib/core/domain/records";
import { seedExecution, serveFunctionUrl } from "../mcp/harness";
import { payStep, taskAwaitingProcess } from "../ingress/actions/harness";
import { blockAction, EXECUTION_RUN_ARN, messageEvent, TASK_PIPELINE_ARN } from "../ingress/ingress-harness";
import { startTestTable } from "../support/dynamo";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, startFakeFreee } from "../../dev/fakes/freee/fake-freee";
import { startFakeSlack } from "../../dev/fakes/slack/fake-slack";
import { accessKeyFor, type RecordingDynamo } from "../support/recording-dynamo";
import { RECORDED_TOKEN_KEY_ARN, type RecordingAws } from "../support/recording-aws";
import { createTokenCipher, type TokenCipher } from "../../lib/store/token-cipher";
import { getRequest, signedInteraction, signedJson, TEST_SIGNING_SECRET } from "../support/slack-signing";

/** Drive the public functions over a recorded DynamoDB endpoint, each signed as its Lambda. */

/** The secrets the scenarios' Lambdas are given: as values, or (with a recording AWS endpoint) by ARN. */
export const SCENARIO_SECRETS = {
  SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET,
  SLACK_CLIENT_ID: "111.222",
  SLACK_CLIENT_SECRET: "client-secret",
  SLACK_STATE_SECRET: "state-secret-0123456789",
  FREEE_CLIENT_ID: FAKE_CLIENT_ID,
  FREEE_CLIENT_SECRET: FAKE_CLIENT_SECRET,
  FREEE_STATE_SECRET: "freee-state-secret-0123456789",
  MCP_BEARER_SECRET: "mcp-bearer-secret-for-access-test-0123456789",
} as const;

/**
 * The settings for secrets and the token key. Without `aws`: secret values and the local key. With it, as
 * deployed: each secret by ARN from Secrets Manager, tokens sealed with KMS (the recording endpoint for both), so
 * which Lambda reads which secret and opens which kind of sealed item is recorded.
 */
function secretSettings(names: readonly (keyof typeof SCENARIO_SECRETS)[], tokenKey: string, aws: RecordingAws | undefined): Record<string, string> {
  if (aws === undefined) return { ...Object.fromEntries(names.map((n) => [n, SCENARIO_SECRETS[n]])), FREEE_TOKEN_LOCAL_KEY: tokenKey };
  return {
    ...Object.fromEntries(names.map((n) => [`${n}_SECRET_ARN`, aws.secretArn(n)])),
    TOKEN_KMS_KEY_ID: RECORDED_TOKEN_KEY_ARN,
    KMS_ENDPOINT: aws.endpoint,
    SECRETS_MANAGER_ENDPOINT: aws.endpoint,
  };
}

/** The cipher the test's own set-up seals with (not recorded: its own identity). */
function setupCipher(tokenKey: string, aws: RecordingAws | undefined): TokenCipher {
  return aws === undefined ? new LocalTokenCipher(tokenKey) : createTokenCipher({ TOKEN_KMS_KEY_ID: RECORDED_TOKEN_KEY_ARN, KMS_ENDPOINT: aws.endpoint, AWS_ACCESS_KEY_ID: "testSetup" });
}

export async function exerciseIngress(dynamo: RecordingDynamo, tokenKey: string, aws?: RecordingAws): Promise<void> {
  const [table, slack, freee] = await Promise.all([startTestTable(), startFakeSlack({ clientId: "111.222", clientSecret: "client-secret", botTokens: ["xoxb-old"] }), startFakeFreee()]);
  dynamo.forwardTo(table.endpoint);
  const env = {
    ...table.env,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    AWS_ACCESS_KEY_ID: "ingress",
    SLACK_API_URL: slack.url,
    TASK_PIPELINE_ARN,
    EXECUTION_RUN_ARN,
    ADMIN_USER_IDS: "UADMIN",
    FREEE_API_BASE_URL: freee.url,
    FREEE_OAUTH_BASE_URL: freee.url,
    PUBLIC_BASE_URL: "https://ingress.example.test",
  };
  // Every secret either Lambda is handed in the stack (infra/stack.ts), so a read the grant would deny shows.
  const secrets = secretSettings(["SLACK_SIGNING_SECRET", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_STATE_SECRET", "FREEE_CLIENT_ID", "FREEE_CLIENT_SECRET", "FREEE_STATE_SECRET"], tokenKey, aws);
  Object.assign(env, secrets);
  const sfn = new SFNClient({ region: "us-east-1", credentials: { accessKeyId: "x", secretAccessKey: "x" } });
  const sfnMock = mockClient(sfn);
  sfnMock.on(StartExecutionCommand).resolves({ executionArn: "arn:x", startDate: new Date() });
  sfnMock.on(SendTaskFailureCommand).resolves({});
  // The Slack ingress (events, App Home) and the web pages (Slack install, freee connect) as two Lambdas.
  const webEnv = { ...env, AWS_ACCESS_KEY_ID: "web" };
  const homePort = freeeHomePortFromEnv(env);
  const events = await createSlackEventsFromEnv(env, { sfn, freee: homePort });
  const slackLambda = createIngress({ events: events.events, freee: homePort, log: events.log });
  const webLambda = await createWebFromEnv(webEnv, { sfn });
  // A Slack owner (an admin by users.info, on no configured list) and a plain member of the installed workspace.
  slack.workspace.addUser({ id: "UOWNER", teamId: "T0001", isOwner: true });
  slack.workspace.addUser({ id: "UMEMBER", teamId: "T0001" });
  const send = (event: Parameters<typeof fromFunctionUrlEvent>[0]) => slackLambda(fromFunctionUrlEvent(event));
  const page = (event: Parameters<typeof fromFunctionUrlEvent>[0]) => webLambda(fromFunctionUrlEvent(event));
  try {
    // Install through Slack OAuth.
    const start = await page(getRequest("/slack/install"));
    const state = new URL(start.headers!.location!).searchParams.get("state")!;
    const cookie = start.cookies!.find((c) => c.startsWith("slack-app-oauth-state="))!.split(";")[0]!;
    expect((await page(getRequest("/slack/oauth_redirect", `code=${slack.issueOAuthCode()}&state=${encodeURIComponent(state)}`, { cookie }))).statusCode).toBe(200);
    // A workspace whose installation an earlier version stored in plain text: its first event seals it.
    await table.doc.send(new PutCommand({ TableName: table.tableName, Item: { ...Keys.installation("T#TOLD"), recordType: "installation", installation: { team: { id: "TOLD" }, bot: { token: "xoxb-old", userId: "UBOT", id: "B" }, isEnterpriseInstall: false } } }));
    for (const team of ["T0001", "TOLD"]) expect((await send(signedJson(messageEvent(team, { text: "経費を登録して" })))).statusCode).toBe(200);
    // App Home (recent tasks and the ledger from the byTeam index), its settings.
    const home = { ...messageEvent("T0001"), event: { type: "app_home_opened", user: "UADMIN", channel: "D1", tab: "home", event_ts: "1710000000.9" } };
    expect((await send(signedJson(home))).statusCode).toBe(200);
    // What saving the admins from App Home writes (home-service → TeamSettingsStore), with the ingress's client.
    await new TeamSettingsStore(createDocumentClient(env), table.tableName).save("T0001", ["UADMIN", "U2"], "UADMIN");
    // freee connect → callback by a Slack owner: the web Lambda reads the team settings and the installation (for
    // users.info) at both steps, then saves the connection and audits it under the workspace.
    const link = new URL(await homePort.buildConnectUrl("T0001", "UOWNER"));
    const connect = await page(getRequest("/freee/connect", link.search.slice(1)));
    expect(connect.statusCode).toBe(302);
    const callback = new URLSearchParams({ code: freee.issueCode(), state: new URL(connect.headers!.location!).searchParams.get("state")! });
    const nonce = connect.cookies!.find((c) => c.startsWith("freee_oauth_nonce="))!.split(";")[0]!;
    const published = slack.callsTo("views.publish").length;
    // A plan awaiting approval, previewed against another company than the one the callback connects (101): the
    // callback invalidates it (its version, audit entry and card: the task partition) and ends its wait.
    const stale = await taskAwaitingProcess(new TaskStore(table.doc, table.tableName), [payStep(1)], { company: { id: 202 }, teamId: "T0001" });
    expect((await page(getRequest("/freee/callback", callback.toString(), { cookie: nonce }))).statusCode).toBe(200);
    expect((await new TaskStore(table.doc, table.tableName).getVersionOrThrow("process", stale.taskId, 1)).status).toBe("failed");
    expect(sfnMock.commandCalls(SendTaskFailureCommand)).toHaveLength(1);
    // The web Lambda then republishes the connecting owner's App Home (its lists: the byTeam index).
    const republished = slack.callsTo("views.publish").slice(published);
    expect(republished.map((c) => [c.body.user_id, c.error])).toEqual([["UOWNER", undefined]]);
    expect(JSON.stringify(republished[0]!.body.view)).toContain("テスト株式会社");
    // A member's App Home lists only their own tasks (a filtered query on the byTeam index).
    expect((await send(signedJson({ ...home, event: { ...home.event, user: "UMEMBER" } }))).statusCode).toBe(200);
    // The owner disconnects freee from App Home (the connection item and a parked refresh, UpdateItem only).
    const disconnect = blockAction("T0001", "UOWNER", HomeActionIds.freeeDisconnect, "");
    expect((await send(signedInteraction({ ...disconnect, container: { type: "view", view_id: "V1" }, message: undefined }))).statusCode).toBe(200);
    expect((await new FreeeConnectionStore(table.doc, table.tableName, setupCipher(tokenKey, aws)).getMeta("T0001"))).toBeUndefined();
    // A message from another organisation (Slack Connect): the allowed list is read, the request refused.
    expect((await send(signedJson(messageEvent("T0001", { user: "UGUEST", user_team: "TOTHER", text: "外部からの依頼" })))).statusCode).toBe(200);
    // Uninstall: a tombstone.
    expect((await send(signedJson({ ...messageEvent("T0001"), event: { type: "app_uninstalled", event_ts: "1710000000.1" } }))).statusCode).toBe(200);
  } finally {
    await Promise.all([slack.close(), freee.stop()]);
    await table.close();
  }
}

export async function exerciseFreeeMcp(dynamo: RecordingDynamo, tokenKey: string, aws?: RecordingAws): Promise<void> {
  const [table, freee] = await Promise.all([startTestTable(), startFakeFreee()]);
  dynamo.forwardTo(table.endpoint);
  const secret = SCENARIO_SECRETS.MCP_BEARER_SECRET;
  const env = {
    ...table.env,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    AWS_ACCESS_KEY_ID: accessKeyFor("freee-mcp"),
    FREEE_API_BASE_URL: freee.url,
    FREEE_OAUTH_BASE_URL: freee.url,
    ...secretSettings(["MCP_BEARER_SECRET", "FREEE_CLIENT_ID", "FREEE_CLIENT_SECRET"], tokenKey, aws),
  };
  // Set up as the pipeline and the connect flow would have (not recorded: the test's own client).
  const store = new TaskStore(table.doc, table.tableName);
  const pair = freee.issueTokens();
  await new FreeeConnectionStore(table.doc, table.tableName, setupCipher(tokenKey, aws)).save({
    teamId: "TMCP",
    // Already expired: the first call refreshes (lease, stored tokens).
    tokens: { ...pair, accessTokenExpiresAt: new Date(Date.now() - 60_000).toISOString(), scope: "read write" },
    companyId: 101,
    companyName: "テスト株式会社",
    connectedBy: "U1",
  });
  const deal = { issue_date: "2026-01-12", type: "expense", details: [{ account_item_id: 21, tax_code: 136, amount: 100 }] };
  const steps: ProcessStep[] = [
    { stepId: "s1", order: 1, tool: "freee_hr_list_employees", effect: "read", toolInput: { year: 2026, month: 1 } },
    { stepId: "s2", order: 2, tool: "freee_accounting_create_deal", effect: "write", toolInput: deal },
  ];
  const { execution } = await seedExecution(store, "TMCP", "1700000000.000777", steps);
  const server = await serveFunctionUrl(plainFunctionUrlHandler(await createFreeeMcpHandlerFromEnv(env)));
  const client = new Client({ name: "access-test", version: "1.0.0" });
  try {
    const bearer = issueMcpBearer({ teamId: "TMCP", executionId: execution.executionId, ttlSeconds: 600 }, secret);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
    await client.listTools();
    expect((await client.callTool({ name: "freee_hr_list_employees", arguments: { year: 2026, month: 1 } })).isError).toBeFalsy();
    freee.fail({ method: "POST", path: "/api/1/deals" }, { status: 400, body: { status_code: 400, errors: [{ type: "validation", messages: ["勘定科目が不正です"] }] } });
    expect((await client.callTool({ name: "freee_accounting_create_deal", arguments: deal })).isError).toBe(true);
    expect((await client.callTool({ name: "freee_accounting_create_deal", arguments: deal })).isError).toBeFalsy();
    // The same write again: answered from the ledger (whatever it says, freee is not called twice).
    await client.callTool({ name: "freee_accounting_create_deal", arguments: deal });
    // A tool outside the approved steps is refused and audited.
    expect((await client.callTool({ name: "freee_hr_update_basic_pay_rule", arguments: { year: 2026, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 1 } })).isError).toBe(true);
  } finally {
    await client.close();
    await server.close();
    await freee.stop();
    await table.close();
  }
}
