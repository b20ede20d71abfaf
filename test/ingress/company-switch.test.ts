import { SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { FreeeCompanyChangedMessages } from "../../lib/core/messages/ja";
import { APPROVALS_REFUSED_METRIC } from "../../lib/core/observability/emf";
import { createLogger } from "../../lib/core/observability/logger";
import type { FreeeOAuth } from "../../lib/freee/oauth";
import { createPlanInvalidator } from "../../lib/freee/plan-invalidation";
import { ActionIds } from "../../lib/ingress/cards";
import { AuditLog } from "../../lib/store/audit-log";
import { oauthOnFake } from "../freee/helpers";
import { getRequest, signedInteraction } from "../support/slack-signing";
import { payStep, taskAwaitingProcess } from "./actions/harness";
import { blockAction, install, startIngressOnFakes } from "./ingress-harness";

/**
 * A reconnect to another freee company invalidates every plan awaiting approval in that workspace, through the
 * public paths: the freee callback over HTTP (the admin picks company 202 on freee's select_company page) and
 * then a signed Slack click on the plan's 承認. The plan previewed against 101 can no longer be approved: the
 * card says the connection changed and the plan must be previewed again, the click gets that reply and nothing
 * resumes, and both are audited and counted. Plans previewed against 202, and other workspaces' plans, stay.
 */
// The setup turns EMF output off for the other suites; the counts are read here.
process.env.POWERTOOLS_METRICS_DISABLED = "false";

const SECRET = "freee-state-secret-for-company-switch";
const HOST = "web.example.test";
let fake: FakeFreee;
let web: Awaited<ReturnType<typeof startIngressOnFakes>>;
let flow: FreeeOAuth;
const webSfn = new SFNClient({ region: "us-east-1", credentials: { accessKeyId: "x", secretAccessKey: "x" } });
const webSfnMock = mockClient(webSfn);
let emf: string[] = [];

beforeAll(async () => {
  fake = await startFakeFreee();
  let port: FreeeOAuth | undefined;
  web = await startIngressOnFakes({}, { connect: (r) => port!.connect(r), callback: (r) => port!.callback(r) });
  await install(web.h, "T1");
  await install(web.h, "T2");
  web.slack.workspace.addUser({ id: "UREQ", teamId: "T1" });
  const logger = createLogger("company-switch-test");
  const audit = new AuditLog(web.h.store, logger);
  port = flow = oauthOnFake(
    { fake, table: web.table, stateSecret: SECRET, host: HOST, audit, logger },
    // As the web Lambda wires it (wiring/web-env.ts): the table, Step Functions and the pipeline's card refresher.
    { invalidatePlans: createPlanInvalidator({ doc: web.table.doc, tableName: web.table.tableName, audit, sfn: webSfn, cards: web.h.ingressCards, log: logger }) },
  );
});
afterAll(async () => {
  await fake.stop();
  await web.table.close();
  await web.slack.close();
});
beforeEach(() => {
  webSfnMock.reset();
  webSfnMock.on(SendTaskFailureCommand).resolves({});
  web.h.sfnMock.resetHistory();
  web.slack.reset();
  emf = [];
  const original = process.stdout.write.bind(process.stdout);
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    if (text.includes('"_aws"')) {
      emf.push(...text.split("\n").filter((l) => l.includes(APPROVALS_REFUSED_METRIC)));
      return true;
    }
    return (original as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  expect(web.slack.takeRefused()).toEqual([]);
});

/** The admin's reconnect through the browser: /freee/connect, freee's company choice, /freee/callback. */
async function reconnect(teamId: string, companyId: number) {
  const link = new URL(flow.buildConnectUrl(teamId, "UADMIN"));
  const opened = await web.h.send(getRequest(link.pathname, link.searchParams.toString(), { host: HOST }));
  expect(opened.statusCode).toBe(302);
  const state = new URL(opened.headers!.location as string).searchParams.get("state")!;
  const cookie = opened.cookies!.find((c) => c.startsWith("freee_oauth_nonce="))!.split(";")[0]!;
  const done = await web.h.send(getRequest("/freee/callback", new URLSearchParams({ code: fake.issueCode({ companyId }), state }).toString(), { host: HOST, cookie }));
  expect(done.statusCode).toBe(200);
}
const click = (taskId: string, actionId: string = ActionIds.approve, teamId = "T1") =>
  web.h.send(signedInteraction(blockAction(teamId, "UREQ", actionId, { taskId, kind: "process", version: 1 })));
const auditOf = async (taskId: string) => (await web.h.store.loadHistory(taskId)).audit;
const counted = (stage: string) => emf.map((l) => JSON.parse(l) as Record<string, unknown>).filter((b) => b.Reason === "company_changed" && b.Stage === stage).length;
const slackTexts = () => JSON.stringify(web.slack.calls.filter((c) => c.method === "chat.update" || c.method === "chat.postMessage").map((c) => c.body));

describe("a freee reconnect to another company", () => {
  it("invalidates the plan previewed against the old company: card redrawn, wait ended, audited and counted; 承認 afterwards runs nothing", async () => {
    await reconnect("T1", 101);
    const stale = await taskAwaitingProcess(web.h.store, [payStep(1)], { company: { id: 101, name: "テスト株式会社" }, token: "TOKEN-stale" });
    const current = await taskAwaitingProcess(web.h.store, [payStep(1)], { company: { id: 202, name: "別会社" }, token: "TOKEN-current" });
    const elsewhere = await taskAwaitingProcess(web.h.store, [payStep(1)], { company: { id: 101, name: "テスト株式会社" }, token: "TOKEN-t2", teamId: "T2" });

    await reconnect("T1", 202);

    expect((await web.h.store.getVersionOrThrow("process", stale.taskId, 1)).status).toBe("failed");
    expect((await web.h.store.getVersionOrThrow("process", current.taskId, 1)).status).toBe("pending_approval");
    expect((await web.h.store.getVersionOrThrow("process", elsewhere.taskId, 1)).status).toBe("pending_approval");
    // The approval wait ends with the error TaskPipeline's failure path records (task failed, error.L3).
    expect(webSfnMock.commandCalls(SendTaskFailureCommand).map((c) => [c.args[0].input.taskToken, c.args[0].input.error])).toEqual([["TOKEN-stale", "FreeeCompanyChangedError"]]);
    const invalidated = (await auditOf(stale.taskId)).filter((a) => a.action === "process.invalidated");
    expect(invalidated.map((a) => a.details)).toEqual([{ reason: "company_changed", approvedCompanyId: 101, connectedCompanyId: 202 }]);
    expect(counted("invalidated")).toBe(1);
    // Its card now says the connection changed and the plan must be previewed again, with no 承認 button.
    expect(slackTexts()).toContain(FreeeCompanyChangedMessages.invalidated);
    const redrawn = web.slack.calls.filter((c) => c.method === "chat.update" || c.method === "chat.postMessage");
    expect(JSON.stringify(redrawn.at(-1)!.body)).not.toContain(ActionIds.approve);

    // The requester clicks 承認 on the card they still had open: a clear reply, no decision, nothing resumes.
    const before = web.slack.callsTo("chat.postEphemeral").length;
    expect((await click(stale.taskId)).statusCode).toBe(200);
    expect(web.slack.callsTo("chat.postEphemeral").slice(before).map((c) => c.body.text)).toEqual([FreeeCompanyChangedMessages.invalidated]);
    expect(web.h.sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(0);
    const version = await web.h.store.getVersionOrThrow("process", stale.taskId, 1);
    expect(version.status).toBe("failed");
    expect(version.decision).toBeUndefined();
    const refused = (await auditOf(stale.taskId)).filter((a) => a.action === "process.decision_refused");
    expect(refused.map((a) => [a.actor, a.details.reason])).toEqual([["UREQ", "company_changed"]]);
    expect(counted("click")).toBe(1);

    // The plan previewed against the company now connected is approved as before.
    expect((await click(current.taskId)).statusCode).toBe(200);
    expect(web.h.sfnMock.commandCalls(SendTaskSuccessCommand).map((c) => c.args[0].input.taskToken)).toEqual(["TOKEN-current"]);
  });

  it("a reconnect to the same company invalidates nothing", async () => {
    await reconnect("T1", 101);
    const task = await taskAwaitingProcess(web.h.store, [payStep(1)], { company: { id: 101, name: "テスト株式会社" } });
    await reconnect("T1", 101);
    expect((await web.h.store.getVersionOrThrow("process", task.taskId, 1)).status).toBe("pending_approval");
    expect(webSfnMock.commandCalls(SendTaskFailureCommand)).toHaveLength(0);
    expect(counted("invalidated")).toBe(0);
  });
});
