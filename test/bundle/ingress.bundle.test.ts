import { build } from "esbuild";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSfnServer, type LocalSfnServer } from "../../bench/sfn-server";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { esbuildOptions, INGRESS_BUNDLING, WEB_BUNDLING, type LambdaBundling } from "../../infra/bundling";
import { PROJECT_ROOT } from "../../infra/constructs/app-function";
import { taskIdFor } from "../../lib/core/domain/records";
import { ActionIds } from "../../lib/ingress/cards";
import { DynamoInstallationStore, installationCipher } from "../../lib/store/installations";
import { TaskStore } from "../../lib/store/task-store";
import { startTestTable, type TestTable } from "../support/dynamo";
import { startFakeSlack, type FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { getRequest, signedInteraction, signedJson, TEST_SIGNING_SECRET, type FunctionUrlEvent } from "../support/slack-signing";
import { blockAction, messageEvent } from "../ingress/ingress-harness";

/**
 * Test what ships: the Slack Lambda (lambdas/ingress) and the web Lambda (lambdas/web) bundled exactly as the stack
 * bundles them (INGRESS_BUNDLING / WEB_BUNDLING: Bolt's unused receivers, and on the Slack Lambda @slack/oauth,
 * aliased to an empty module), loaded by Node from the files, configured from the environment as on AWS, serving
 * every route with requests signed and shaped as Slack and browsers send them.
 */
type Handler = (event: FunctionUrlEvent) => Promise<{ statusCode: number; headers?: Record<string, string>; cookies?: string[]; body: string }>;

const TASK_PIPELINE_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:TaskPipeline";
const EXECUTION_RUN_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:ExecutionRun";
const PUBLIC_BASE = "https://ingress.example.test";

mkdirSync(join(PROJECT_ROOT, "node_modules", ".cache"), { recursive: true });
const outDir = mkdtempSync(join(PROJECT_ROOT, "node_modules", ".cache", "ingress-bundle-"));
let table: TestTable;
let slack: FakeSlack;
let sfn: LocalSfnServer;
let freee: FakeFreee;
let handler: Handler;
let web: Handler;
let bundledPackages: Set<string>;
let bundledInputs: string[];
let webPackages: Set<string>;
let webBundleFile: string;

async function bundle(folder: string, bundling: LambdaBundling): Promise<{ file: string; packages: Set<string>; inputs: string[] }> {
  const file = join(outDir, folder, "index.mjs");
  const result = await build({ ...esbuildOptions(bundling), entryPoints: [join(PROJECT_ROOT, "lambdas", folder, "handler.ts")], outfile: file, metafile: true });
  // A worktree whose node_modules is a symlink sees "../main/node_modules/…" (esbuild follows the link): name them from node_modules.
  const inputs = Object.keys(result.metafile.inputs).map((path) => path.replace(/^(?:\.\.\/)+[^/]+\/(?=node_modules\/)/, ""));
  return { file, inputs, packages: new Set(inputs.map((path) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? "app")) };
}

beforeAll(async () => {
  [table, slack, sfn, freee] = await Promise.all([startTestTable(), startFakeSlack(), startSfnServer(), startFakeFreee()]);
  const [slackBundle, webBundle] = await Promise.all([bundle("ingress", INGRESS_BUNDLING), bundle("web", WEB_BUNDLING)]);
  // No ADMIN_USER_IDS: UADMIN is an admin because Slack says so (users.info is_owner), in both bundles.
  slack.workspace.addUser({ id: "UADMIN", teamId: "T0001", isOwner: true });
  bundledPackages = slackBundle.packages;
  bundledInputs = slackBundle.inputs;
  webPackages = webBundle.packages;
  webBundleFile = webBundle.file;
  // The Lambda reads its settings from the environment when its module loads.
  Object.assign(process.env, {
    ...table.env,
    SFN_ENDPOINT: sfn.url,
    SLACK_API_URL: slack.url,
    SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET,
    SLACK_CLIENT_ID: "fake-slack-client-id",
    SLACK_CLIENT_SECRET: "fake-slack-client-secret",
    SLACK_STATE_SECRET: "state-secret-0123456789",
    SLACK_REDIRECT_URI: `${PUBLIC_BASE}/slack/oauth_redirect`,
    TASK_PIPELINE_ARN,
    EXECUTION_RUN_ARN,
    PUBLIC_BASE_URL: PUBLIC_BASE,
    FREEE_CONNECT_BASE_URL: PUBLIC_BASE,
    FREEE_CLIENT_ID: FAKE_CLIENT_ID,
    FREEE_CLIENT_SECRET: FAKE_CLIENT_SECRET,
    FREEE_STATE_SECRET: "freee-state-secret-0123456789",
    FREEE_TOKEN_LOCAL_KEY: randomBytes(32).toString("base64"),
    FREEE_API_BASE_URL: freee.url,
    FREEE_OAUTH_BASE_URL: freee.url,
    LOG_LEVEL: "SILENT",
  });
  handler = ((await import(pathToFileURL(slackBundle.file).href)) as { handler: Handler }).handler;
  web = ((await import(pathToFileURL(webBundle.file).href)) as { handler: Handler }).handler;
}, 120_000);
afterAll(async () => {
  await Promise.all([table?.close(), slack?.close(), sfn?.close(), freee?.stop()]);
  rmSync(outDir, { recursive: true, force: true });
});

describe("the bundles", () => {
  const receivers = ["express", "body-parser", "iconv-lite", "mime-db", "undici", "@slack/socket-mode", "raw-body", "path-to-regexp"];
  it("the Slack Lambda leaves out Bolt's unused receivers, the install flow and freee's OAuth, and the full zod", () => {
    const present = [...receivers, "@slack/oauth", "jsonwebtoken"].filter((p) => bundledPackages.has(p));
    expect(present).toEqual([]);
    expect(bundledPackages.has("@slack/bolt")).toBe(true);
    // Bot tokens are stored sealed: the Slack Lambda opens them with KMS.
    expect(bundledPackages.has("@aws-sdk/client-kms")).toBe(true);
    // Credentials come from the Lambda environment only (lambdas/ingress/env-credentials.ts): no SDK chain.
    const chain = ["@aws-sdk/credential-provider-node", "@aws-sdk/credential-provider-ini", "@aws-sdk/credential-provider-sso", "@aws-sdk/nested-clients", "@smithy/credential-provider-imds"];
    expect(chain.filter((p) => bundledPackages.has(p))).toEqual([]);
    expect(bundledPackages.has("@aws-sdk/credential-provider-env")).toBe(true);
  });

  it("the Slack Lambda knows the tools from their summaries only: no input schemas, validators or freee OpenAPI", () => {
    // The cards and the plan review need a tool's name, words and read/write (lib/freee/tools/summaries.ts). The
    // registry's schemas bring full zod, ajv and freee's vendored OpenAPI: about 800 KB the Slack Lambda never runs.
    const heavy = [/node_modules\/zod\/v4\/classic\//, /node_modules\/ajv\//, /^lib\/freee\/openapi\//, /^lib\/tools\/(registry|define|typed-tools|generic-tools|upload-tool)\.ts$/];
    expect(bundledInputs.filter((path) => heavy.some((re) => re.test(path)))).toEqual([]);
    expect(bundledInputs).toContain("lib/freee/tools/summaries.ts");
    expect(bundledInputs).toContain("node_modules/zod/v4/mini/external.js");
  });

  it("the web Lambda, with the web admin (hono), stays at most 1 MiB", () => {
    expect(webPackages.has("hono")).toBe(true);
    expect(statSync(webBundleFile).size).toBeLessThanOrEqual(2 ** 20);
  });

  it("the web Lambda leaves out Bolt's unused receivers but keeps the install flow", () => {
    expect(receivers.filter((p) => webPackages.has(p))).toEqual([]);
    expect(webPackages.has("@slack/oauth")).toBe(true);
  });
});

describe("every route, served by the bundle", () => {
  it("url_verification answers the challenge", async () => {
    const res = await handler(signedJson({ type: "url_verification", challenge: "the-challenge", token: "t" }));
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ challenge: "the-challenge" });
  });

  it("a bad signature is a 401 and starts nothing", async () => {
    const before = sfn.calls.StartExecution ?? 0;
    const res = await handler(signedJson(messageEvent("T0001"), { secret: "not-the-signing-secret" }));
    expect(res.statusCode).toBe(401);
    expect(sfn.calls.StartExecution ?? 0).toBe(before);
  });

  it("an unknown path is the 404 page on both; each Lambda answers 404 for the other's routes", async () => {
    for (const h of [handler, web]) {
      const res = await h(getRequest("/nowhere"));
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain("ページが見つかりません");
    }
    expect((await handler(getRequest("/slack/install"))).statusCode).toBe(404);
    expect((await handler(getRequest("/freee/callback"))).statusCode).toBe(404);
    expect((await web(signedJson({ type: "url_verification", challenge: "c", token: "t" }))).statusCode).toBe(404);
  });

  it("install → OAuth redirect stores the installation; then an event of that workspace starts a TaskPipeline", async () => {
    const start = await web(getRequest("/slack/install"));
    expect(start.statusCode).toBe(302);
    const location = new URL(start.headers!.location!);
    expect(location.searchParams.get("client_id")).toBe("fake-slack-client-id");
    const state = location.searchParams.get("state")!;
    const cookie = start.cookies!.find((c) => c.startsWith("slack-app-oauth-state="))!.split(";")[0]!;

    const callback = await web(getRequest("/slack/oauth_redirect", `code=${encodeURIComponent(slack.issueOAuthCode())}&state=${encodeURIComponent(state)}`, { cookie }));
    expect(callback.statusCode).toBe(200);
    expect(callback.body).toContain("インストールが完了しました");
    const stored = await new DynamoInstallationStore(table.doc, table.tableName, { cipher: installationCipher() }).find({ teamId: "T0001", isEnterpriseInstall: false });
    expect(stored?.bot?.token).toMatch(/^xoxb-/);

    const message = messageEvent("T0001", { text: "来月から山田さんの基本給を30万円に変更して" });
    const res = await handler(signedJson(message, { base64: true }));
    expect(res.statusCode).toBe(200);
    const name = taskIdFor({ teamId: "T0001", channelId: "C1", messageTs: message.event.ts });
    const input = JSON.parse(sfn.started.get(`${TASK_PIPELINE_ARN}:${name}`)!) as { requestText: string };
    // The base64 body was decoded as UTF-8 before Bolt saw it.
    expect(input.requestText).toBe("来月から山田さんの基本給を30万円に変更して");
  });

  it("interactivity: an approve click resumes the waiting approval with its task token", async () => {
    const store = new TaskStore(table.doc, table.tableName);
    const thread = { teamId: "T0001", channelId: "C1", messageTs: "1600000000.000001" };
    const taskId = taskIdFor(thread);
    await store.createTask({ thread, requesterId: "UREQ", requestText: "基本給を変更して", pipelineExecutionName: taskId });
    await store.createVersion("prompt", taskId, 1);
    await store.saveVersionContent("prompt", taskId, 1, { text: "目的: 基本給を変更する。" });
    await store.openApproval("prompt", taskId, 1, "task-token-bundle", { teamId: "T0001", requesterId: "UREQ" });
    const res = await handler(signedInteraction(blockAction("T0001", "UREQ", ActionIds.approve, { taskId, kind: "prompt", version: 1 })));
    expect(res.statusCode).toBe(200);
    expect(sfn.tokensSent).toContain("task-token-bundle");
  });

  it("freee: App Home's signed link (Slack Lambda) → connect → freee's authorize page → callback stores the connection (web Lambda)", async () => {
    const link = new URL(`${PUBLIC_BASE}/freee/connect`);
    // The App Home button's signed link, as the bundle's own App Home builds it.
    await handler(signedJson({ token: "t", team_id: "T0001", api_app_id: "A0001", type: "event_callback", event_id: "EvHome", event_time: 1, event: { type: "app_home_opened", user: "UADMIN", tab: "home", event_ts: "1.1" } }));
    const published = slack.callsTo("views.publish").at(-1);
    const button = JSON.stringify(published?.body ?? {}).match(/https:\/\/ingress\.example\.test\/freee\/connect\?[^"\\]+/)?.[0];
    expect(button).toBeDefined();
    const connectUrl = new URL(button!.replaceAll("\\u0026", "&"));
    const connect = await web(getRequest(link.pathname, connectUrl.search.slice(1)));
    expect(connect.statusCode).toBe(302);
    const authorize = new URL(connect.headers!.location!);
    expect(authorize.origin + authorize.pathname).toBe(`${freee.url}/public_api/authorize`);
    const nonce = connect.cookies!.find((c) => c.startsWith("freee_oauth_nonce="))!.split(";")[0]!;

    // freee's page redirects back with a code and the state.
    const consent = await fetch(authorize, { redirect: "manual" });
    const back = new URL(consent.headers.get("location")!);
    const callback = await web(getRequest("/freee/callback", back.search.slice(1), { cookie: nonce }));
    expect(callback.statusCode).toBe(200);
    expect(freee.tokenRequests("authorization_code")).toHaveLength(1);
    // The web Lambda asked Slack who UADMIN is at the start and again in the callback (a warm instance may cache it).
    expect(slack.callsTo("users.info").map((c) => c.body.user)).toContain("UADMIN");
    // App Home, on the Slack Lambda, now shows the connection the web Lambda stored.
    await handler(signedJson({ token: "t", team_id: "T0001", api_app_id: "A0001", type: "event_callback", event_id: "EvHome2", event_time: 1, event: { type: "app_home_opened", user: "UADMIN", tab: "home", event_ts: "1.2" } }));
    expect(JSON.stringify(slack.callsTo("views.publish").at(-1)?.body ?? {})).toContain("接続済み");
  });
});
