import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancelExecution, rerunExecution } from "../../lib/ingress/actions";
import { taskIdFor } from "../../lib/core/domain/records";
import { LocalTokenCipher } from "../../lib/store/token-cipher";
import { DynamoInstallationStore } from "../../lib/store/installations";
import { Keys, TABLE_KEYS } from "../../lib/store/table";
import { BY_TEAM_LIST_KEYS, TABLE_ACCESS, type AccessName } from "../../infra/table-access";
import { decide, l1Ok, l2Ok, l3Ok, runApprovedTask, runExecution } from "../steps/fixtures";
import { errorReply, ev } from "../../dev/fakes/anthropic";
import { startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { startRecordingDynamo, type DynamoCall, type RecordingDynamo } from "../support/recording-dynamo";
import { synthTemplate } from "./synth";
import { exerciseFreeeMcp, exerciseIngress } from "./table-access-scenarios";

/**
 * Issue 15 item 5: every Lambda could Scan, DeleteItem and BatchWriteItem the whole table. Now each role has the
 * actions its code calls, per partition prefix. Two directions: the template grants no more than
 * infra/table-access.ts says, and what the handlers really call (recorded at a DynamoDB endpoint, each call
 * signed as its Lambda) is all allowed by the synthesized policy — so the narrowing breaks nothing in production.
 */

const { stack, template } = synthTemplate();
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
const tableId = stack.getLogicalId(stack.data.table.node.defaultChild as never);
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, string | string[]>> };

function statementsOf(name: AccessName | "refresh-freee-tokens"): Statement[] {
  const roleId = stack.getLogicalId(stack.functions[name].role.node.defaultChild as never);
  return Object.values(resources)
    .filter((r) => r.Type === "AWS::IAM::Policy" && (r.Properties.Roles as { Ref: string }[]).some((x) => x.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}
const actions = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const onTable = (s: Statement) => JSON.stringify(s.Resource).includes(`"${tableId}"`) && actions(s).some((a) => a.startsWith("dynamodb:"));
const isTableArn = (r: unknown) => JSON.stringify(r) === JSON.stringify({ "Fn::GetAtt": [tableId, "Arn"] });
const isIndexArn = (r: unknown, index: string) => JSON.stringify(r) === JSON.stringify({ "Fn::Join": ["", [{ "Fn::GetAtt": [tableId, "Arn"] }, `/index/${index}`]] });
const glob = (pattern: string, value: string) => new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`).test(value);

/** IAM's answer for one recorded call, from the synthesized statements (Allow only; no Deny is synthesized). */
function allowed(name: AccessName, call: DynamoCall): boolean {
  return statementsOf(name).some((s) => {
    if (s.Effect !== "Allow" || !actions(s).includes(`dynamodb:${call.action}`)) return false;
    const resources = Array.isArray(s.Resource) ? s.Resource : [s.Resource];
    if (!resources.some((r) => (call.index === undefined ? isTableArn(r) : isIndexArn(r, call.index)))) return false;
    for (const [operator, keys] of Object.entries(s.Condition ?? {})) {
      for (const [key, value] of Object.entries(keys)) {
        if (operator !== "ForAllValues:StringLike" || key !== "dynamodb:LeadingKeys") return false; // not modelled: deny
        const patterns = Array.isArray(value) ? value : [value];
        if (call.leadingKeys.length === 0 || !call.leadingKeys.every((k) => patterns.some((p) => glob(p, k)))) return false;
      }
    }
    return true;
  });
}

const NAMES = Object.keys(TABLE_ACCESS) as AccessName[];

describe("the template grants each Lambda its table actions only", () => {
  it("per function: the DynamoDB actions, each with a LeadingKeys condition, as infra/table-access.ts lists them", () => {
    for (const name of NAMES) {
      const table = statementsOf(name).filter(onTable);
      const granted = [...new Set(table.flatMap(actions))].sort();
      const expected = TABLE_ACCESS[name];
      const wanted = [...new Set([...Object.values(expected.partitions).flat(), ...(expected.byTeamIndex === true ? ["Query"] : [])].map((a) => `dynamodb:${a}`))].sort();
      expect(granted, name).toEqual(wanted);
      for (const s of table) {
        const resources = Array.isArray(s.Resource) ? s.Resource : [s.Resource];
        if (resources.every((r) => isIndexArn(r, TABLE_KEYS.byTeamIndex))) {
          expect(actions(s), name).toEqual(["dynamodb:Query"]);
          // A workspace's lists only: the freee refresh partition (every workspace's connection) is out of reach.
          const indexKeys = [s.Condition?.["ForAllValues:StringLike"]?.["dynamodb:LeadingKeys"]].flat();
          expect(indexKeys, name).toEqual([...BY_TEAM_LIST_KEYS]);
          expect(indexKeys.some((p) => glob(String(p), Keys.freeeRefreshIndex)), name).toBe(false);
          continue;
        }
        expect(resources.every(isTableArn), name).toBe(true);
        const leading = s.Condition?.["ForAllValues:StringLike"]?.["dynamodb:LeadingKeys"];
        expect(leading, `${name}: ${JSON.stringify(s)}`).toBeDefined();
        for (const p of [leading].flat()) expect(Object.keys(expected.partitions).map((x) => `${x}*`), name).toContain(p);
      }
      const indexed = table.some((s) => [s.Resource].flat().some((r) => isIndexArn(r, TABLE_KEYS.byTeamIndex)));
      expect(indexed, name).toBe(expected.byTeamIndex === true);
    }
  });

  it("no role may Scan, DeleteItem, Batch*, Transact* or reach the table outside its statements; the public ones least of all", () => {
    const forbidden = ["Scan", "DeleteItem", "BatchWriteItem", "BatchGetItem", "TransactWriteItems", "TransactGetItems", "DescribeTable", "ConditionCheckItem"];
    // Every function of the stack, the daily freee refresh (its own construct) included.
    for (const name of Object.keys(stack.functions) as (keyof typeof stack.functions)[]) {
      // The MCP server's write claim checks its run's status in the same transaction: on task items only (below).
      const granted = statementsOf(name)
        .flatMap(actions)
        .filter((a) => !(name === "freee-mcp" && a === "dynamodb:ConditionCheckItem"));
      // Every statement carries LeadingKeys, the index Query of App Home (ingress, web) included.
      for (const s of statementsOf(name).filter(onTable)) expect(JSON.stringify(s.Condition ?? {}), `${name}: ${JSON.stringify(s)}`).toContain("dynamodb:LeadingKeys");
      for (const action of forbidden) expect(granted, `${name} ${action}`).not.toContain(`dynamodb:${action}`);
      expect(granted.filter((a) => a.startsWith("dynamodb:") && a.includes("*")), name).toEqual([]);
    }
    const mcp = statementsOf("freee-mcp").filter(onTable);
    // The public MCP server reads an installation (a file-box upload fetches the request's file with the bot
    // token) but never writes one: GetItem only on INSTALL#.
    const installs = mcp.filter((s) => JSON.stringify(s.Condition ?? {}).includes("INSTALL#"));
    expect(installs.flatMap(actions)).toEqual(["dynamodb:GetItem"]);
    const checks = mcp.filter((s) => actions(s).includes("dynamodb:ConditionCheckItem"));
    expect(checks.map((s) => s.Condition?.["ForAllValues:StringLike"]?.["dynamodb:LeadingKeys"])).toEqual([["TASK#*"]]);
    expect(JSON.stringify(mcp)).not.toContain("CONFIG#");
    expect(statementsOf("create-task").filter(onTable).flatMap((s) => [s.Condition?.["ForAllValues:StringLike"]?.["dynamodb:LeadingKeys"]].flat())).toEqual(
      expect.not.arrayContaining(["TEAM#*", "CONFIG#*"]),
    );
  });
});

describe("what the handlers call is allowed (recorded at the DynamoDB endpoint, attributed per Lambda)", () => {
  let dynamo: RecordingDynamo;
  let h: PipelineHarness;
  const key = Buffer.alloc(32, 5).toString("base64");

  beforeAll(async () => {
    dynamo = await startRecordingDynamo(TABLE_KEYS.partitionKey);
    // Multi-workspace, as deployed: cards read the sealed installation (no SLACK_BOT_TOKEN).
    // One regeneration allowed: the second rejection of a task closes it (handle-rejection writes then).
    h = await startPipelineHarness({ dynamo, context: { maxRegenerations: 1 }, env: { SLACK_BOT_TOKEN: "", FREEE_TOKEN_LOCAL_KEY: key } });
    await new DynamoInstallationStore(h.table.doc, h.table.tableName, { cipher: new LocalTokenCipher(key) }).storeInstallation({
      team: { id: "T0001", name: "T" },
      enterprise: undefined,
      user: { id: "U1", token: undefined, scopes: undefined },
      bot: { id: "B1", userId: "UBOT", token: "xoxb-test-pipeline", scopes: ["chat:write"] },
      isEnterpriseInstall: false,
      appId: "A1",
      tokenType: "bot",
      authVersion: "v2",
    });
  });
  afterAll(async () => {
    await h.close();
    await dynamo.close();
  });

  it("the pipeline and the ingress's clicks: review, rejection, run, cancel, rerun, failures, expiry, a task never created", async () => {
    // A whole task, with one rejection, then a run that is cancelled and rerun.
    h.anthropic.enqueue(l1Ok(), l2Ok(), l2Ok("目的: 直した方針"), l3Ok());
    h.agents.scriptNextSession({ polls: [{ events: [ev.running()] }, { events: [ev.running()] }, { events: [ev.running()] }] });
    const task = h.startTask();
    await decide(h, task.taskId, "prompt", 1, { reject: "対象月が違います" });
    await decide(h, task.taskId, "prompt", 2, "approve");
    await decide(h, task.taskId, "process", 1, "approve");
    const run = await runExecution(h, task.taskId);
    await h.local.waitFor(() => run.events.some((e) => e.type === "StateEntered" && (e as { state?: { name?: string } }).state?.name === "PollSession"), 10_000, "first poll");
    expect((await cancelExecution(h.actions, h.actor, { taskId: task.taskId, executionNo: 1 })).outcome).toBe("applied");
    await run.done;
    expect((await rerunExecution(h.actions, h.actor, { taskId: task.taskId, executionNo: 1 })).outcome).toBe("applied");
    await (await runExecution(h, task.taskId, 2)).done;

    // Rejected twice: the regeneration limit closes the task.
    h.anthropic.enqueue(l1Ok(), l2Ok(), l2Ok("目的: 二つ目"));
    const limited = h.startTask();
    await decide(h, limited.taskId, "prompt", 1, { reject: "違います" });
    await decide(h, limited.taskId, "prompt", 2, { reject: "まだ違います" });
    await limited.execution.done;

    // L1 fails (record-pipeline-failure), an approval expires (expire-approval), the run fails (record-run-failure).
    h.anthropic.enqueue(errorReply(400, "invalid_request_error", "bad"));
    await h.startTask().execution.done;
    h.anthropic.enqueue(l1Ok(), l2Ok());
    const expiring = h.startTask();
    h.local.timeOutTask((await h.local.waitForToken(expiring.taskId, "AwaitPromptApproval")).token);
    await expiring.execution.done;
    h.agents.scriptNextSession({ polls: [{ events: [ev.running(), ev.sessionError("api_error", "terminal")] }] });
    const failing = await runApprovedTask(h);

    // The task item cannot be created: audited under the workspace.
    const thread = { teamId: "T0001", channelId: "C0001", messageTs: "1799999999.000100" };
    await h.local.startExecution(h.machines.taskPipelineArn, taskIdFor(thread), { thread, requesterId: "UREQ", requestText: "" }).done;

    expectAllAllowed(dynamo.calls, ["create-task", "analyze-task", "generate-prompt", "generate-process", "await-approval", "handle-rejection", "expire-approval", "start-run", "record-pipeline-failure", "start-session", "poll-session", "record-run-failure", "ingress"]);
    // Six whole tasks: ~15 s alone, more than the default 30 s on a machine shared with other suites.
  }, 120_000);

  it("the ingress and the web pages as deployed: install, message, App Home, settings, freee connect, uninstall", async () => {
    dynamo.calls.length = 0;
    await exerciseIngress(dynamo, key);
    expectAllAllowed(dynamo.calls, ["ingress", "web"]);
  });

  it("the freee MCP server as deployed: tools, a write once, a refused write released, a token refresh", async () => {
    dynamo.calls.length = 0;
    await exerciseFreeeMcp(dynamo, key);
    expectAllAllowed(dynamo.calls, ["freee-mcp"]);
  });
});

/** A call as a grant names it: the action and the partition prefix (or the byTeam index). */
const grantOf = (c: DynamoCall) => (c.index !== undefined ? `Query ${c.index}` : `${c.action} ${c.leadingKeys.map((k) => `${k.split("#")[0]}#`).join(",")}`);
/**
 * Grants of the public Lambdas whose code path the scenarios do not take, each with where it is exercised: the MCP
 * server reads the Slack installation only for a file-box upload's Slack file (test/mcp/file-box.ddb.test.ts).
 */
const EXERCISED_ELSEWHERE: Partial<Record<AccessName, string[]>> = { "freee-mcp": ["GetItem INSTALL#"] };

describe("the public Lambdas hold no table grant their code did not use", () => {
  it("ingress, web and the freee MCP server: granted = recorded (action × partition), TEAM# writes only to their items", () => {
    for (const name of ["ingress", "web", "freee-mcp"] as const) {
      const access = TABLE_ACCESS[name];
      const granted = [
        ...Object.entries(access.partitions).flatMap(([prefix, acts]) => acts.map((a) => `${a} ${prefix}`)),
        ...(access.byTeamIndex === true ? [`Query ${TABLE_KEYS.byTeamIndex}`] : []),
      ].sort();
      const used = [...new Set([...allRecorded.filter((c) => c.principal === name).map(grantOf), ...(EXERCISED_ELSEWHERE[name] ?? [])])].sort();
      expect(granted, name).toEqual(used);
    }
    // IAM sees only the partition: what the public pages write under a workspace's is named here, item by item.
    const teamWrites = (name: string) =>
      [...new Set(allRecorded.filter((c) => c.principal === name && (c.action === "PutItem" || c.action === "UpdateItem") && c.leadingKeys[0]?.startsWith("TEAM#")).map((c) => c.sortKey!.replace(/^(AUDIT|FREEE#USED)#.*$/, "$1#…")))].sort();
    expect(teamWrites("ingress")).toEqual(["AUDIT#…", "FREEE", "FREEE#PENDING", "SETTINGS"]);
    expect(teamWrites("web")).toEqual(["AUDIT#…", "FREEE", "FREEE#USED#…"]);
  });
});

/** Every call the scenarios above recorded (each test clears the recorder; this keeps them for the last test). */
const allRecorded: DynamoCall[] = [];

/** Every recorded call of a Lambda is allowed by its role, and each Lambda in `expected` made some. */
function expectAllAllowed(calls: DynamoCall[], expected: AccessName[]): void {
  const ours = calls.filter((c) => (NAMES as string[]).includes(c.principal));
  allRecorded.push(...ours);
  const denied = ours.filter((c) => !allowed(c.principal as AccessName, c)).map((c) => `${c.principal}: ${c.action} ${c.index ?? ""} ${c.leadingKeys.join(",")}`);
  expect([...new Set(denied)]).toEqual([]);
  const seen = new Set(ours.map((c) => c.principal));
  for (const name of expected) expect(seen.has(name), `${name} made no DynamoDB call`).toBe(true);
  expect(ours.length).toBeGreaterThan(0);
}
