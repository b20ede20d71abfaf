import { build } from "esbuild";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Context } from "aws-lambda";
import { afterAll, beforeAll, expect, it } from "vitest";
import { esbuildOptions, LAMBDA_BUNDLING } from "../../infra/bundling";
import { PROJECT_ROOT } from "../../infra/constructs/app-function";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { startTestTable, type TestTable } from "../support/dynamo";
import { localKey, makeStore } from "../freee/helpers";

/**
 * Test what ships: the daily freee refresh Lambda bundled with the stack's own options, run as Lambda runs it
 * (the bundle imported by Node's loader, the handler called with an event and a context) against DynamoDB Local and
 * the strict freee fake. A wrong app secret must surface as FatalConfigError by name in the bundle too.
 */
mkdirSync(join(PROJECT_ROOT, "node_modules", ".cache"), { recursive: true });
const outDir = mkdtempSync(join(PROJECT_ROOT, "node_modules", ".cache", "refresh-bundle-"));
const outfile = join(outDir, "index.mjs");
const context = { getRemainingTimeInMillis: () => 300_000 } as unknown as Context;
type Handler = (event: unknown, context: Context) => Promise<{ refreshed: string[] }>;
let table: TestTable;
let fake: FakeFreee;
let key: string;

beforeAll(async () => {
  await build({ ...esbuildOptions(LAMBDA_BUNDLING), entryPoints: [join(PROJECT_ROOT, "lambdas/refresh-freee-tokens/handler.ts")], outfile });
  table = await startTestTable();
  fake = await startFakeFreee();
  key = localKey();
  Object.assign(process.env, table.env, { FREEE_TOKEN_LOCAL_KEY: key, FREEE_CLIENT_ID: FAKE_CLIENT_ID, FREEE_OAUTH_BASE_URL: fake.url, FREEE_API_BASE_URL: fake.url, LOG_LEVEL: "SILENT" });
}, 120_000);
afterAll(async () => {
  await fake.stop();
  await table.close();
  rmSync(outDir, { recursive: true, force: true });
});

async function dueConnection(teamId: string) {
  const pair = fake.issueTokens();
  const issued = new Date(Date.now() - 61 * 86_400_000).toISOString();
  await makeStore(table, key).save({ teamId, tokens: { ...pair, accessTokenExpiresAt: issued, refreshTokenIssuedAt: issued }, companyId: 101, connectedBy: "U1" });
}

/** Each import is a fresh container (its own wiring). */
let containers = 0;
async function coldStart(secret: string): Promise<Handler> {
  process.env.FREEE_CLIENT_SECRET = secret;
  return ((await import(`${pathToFileURL(outfile).href}?container=${++containers}`)) as { handler: Handler }).handler;
}

it("the bundled handler refreshes a connection whose refresh token is 61 days old", async () => {
  await dueConnection("TB1");
  const summary = await (await coldStart(FAKE_CLIENT_SECRET))({ source: "aws.events" }, context);
  expect(summary.refreshed).toEqual(["TB1"]);
  expect((await makeStore(table, key).getMeta("TB1"))!.version).toBe(2);
});

it("a wrong app secret: FatalConfigError by name (alarmed), the workspace not flagged", async () => {
  await dueConnection("TB2");
  const err = (await (await coldStart("not-the-secret"))({}, context).catch((e: unknown) => e)) as Error;
  expect(err.name).toBe("FatalConfigError");
  expect((await makeStore(table, key).getMeta("TB2"))!.status).toBe("active");
});
