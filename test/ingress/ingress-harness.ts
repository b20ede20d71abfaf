import { createCardRefresher } from "../../wiring/slack-factory";
import { SendTaskSuccessCommand, SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { TaskPipelineInputSchema } from "../../lib/steps/machines/contracts";
import { createTokenCipher } from "../../lib/store/token-cipher";
import { DynamoInstallationStore } from "../../lib/store/installations";
import { fromFunctionUrlEvent, type HttpResponse } from "../../lib/ingress/http/types";
import type { FreeePort } from "../../lib/ingress/freee-port";
import { createIngressFromEnv } from "../../wiring/ingress-env";
import { TaskStore } from "../../lib/store/task-store";
import { startTestTable, type TestTable } from "../support/dynamo";
import { startFakeSlack, type FakeSlack } from "../../dev/fakes/slack/fake-slack";
import { TEST_SIGNING_SECRET, type FunctionUrlEvent } from "../support/slack-signing";

/**
 * A refusal App Home meets with tasks seeded without their request in the fake workspace: it asks for the thread's
 * permalink and Slack answers message_not_found, as for a deleted request (the task is shown unlinked).
 */
export const unlinkedThread = (r: { method: string; error: string | undefined }) => r.method === "chat.getPermalink" && r.error === "message_not_found";

export const TASK_PIPELINE_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:TaskPipeline";
/** The local AES key the ingress seals installations with in these tests (base64 of 32 bytes). */
export const TEST_TOKEN_KEY = Buffer.alloc(32, 3).toString("base64");
export const EXECUTION_RUN_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:ExecutionRun";

/**
 * The ingress wired from settings exactly as the Lambda is, over DynamoDB Local and the recording Slack server.
 * Step Functions is a tiny local fake: StartExecution with a taken name throws ExecutionAlreadyExists (as AWS
 * does) and a new TaskPipeline execution runs its first state (the conditional Task create).
 */
export async function startIngress(table: TestTable, slack: FakeSlack, extraEnv: Record<string, string> = {}, freee: FreeePort = {}) {
  const store = new TaskStore(table.doc, table.tableName);
  const sfn = new SFNClient({ region: "us-east-1", credentials: { accessKeyId: "x", secretAccessKey: "x" } });
  const sfnMock = mockClient(sfn);
  const names = new Set<string>();
  sfnMock.on(StartExecutionCommand).callsFake(async (input: { name: string; stateMachineArn: string; input: string }) => {
    if (names.has(input.name)) throw Object.assign(new Error("Execution Already Exists"), { name: "ExecutionAlreadyExists" });
    names.add(input.name);
    if (input.stateMachineArn === TASK_PIPELINE_ARN) {
      const parsed = TaskPipelineInputSchema.parse(JSON.parse(input.input));
      await store.createTask({ ...parsed, pipelineExecutionName: input.name });
    }
    return { executionArn: `${input.stateMachineArn}:${input.name}`, startDate: new Date() };
  });
  sfnMock.on(SendTaskSuccessCommand).resolves({});
  const env = {
    ...table.env,
    SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET,
    SLACK_API_URL: slack.url,
    SLACK_CLIENT_ID: "111.222",
    SLACK_CLIENT_SECRET: "client-secret",
    SLACK_STATE_SECRET: "state-secret-0123456789",
    TASK_PIPELINE_ARN,
    EXECUTION_RUN_ARN,
    ADMIN_USER_IDS: "UADMIN",
    FREEE_TOKEN_LOCAL_KEY: TEST_TOKEN_KEY,
    ...extraEnv,
  };
  const ingress = await createIngressFromEnv(env, { doc: table.doc, sfn, freee });
  const installations = new DynamoInstallationStore(table.doc, table.tableName, { cipher: createTokenCipher(env) });
  const send = async (event: FunctionUrlEvent): Promise<HttpResponse> => ingress(fromFunctionUrlEvent(event));
  // Interactions carry trigger_ids Slack issued at delivery (the fake holds them to its 3 s and single use).
  issueTriggerId = () => slack.issueTriggerId();
  // The pipeline's own refresher, over the same table and Slack: to draw a card as a step would.
  const ingressCards = createCardRefresher(store, table.doc, env);
  return { ingress, send, store, sfnMock, installations, env, slack, ingressCards };
}

let issueTriggerId: () => string = () => "1234.5678.abcdef";

/** Store an installation for a workspace, as the OAuth flow would (Slack issued its bot token). */
/** A table on DynamoDB Local, the recording Slack and the ingress over both: what every ingress test file starts. */
export async function startIngressOnFakes(extraEnv: Record<string, string> = {}, freee: FreeePort = {}) {
  const [table, slack] = await Promise.all([startTestTable(), startFakeSlack()]);
  return { table, slack, h: await startIngress(table, slack, extraEnv, freee) };
}

export async function install(h: { installations: DynamoInstallationStore; slack: FakeSlack }, teamId: string, botToken = `xoxb-${teamId}`) {
  h.slack.addBotToken(botToken, { teamId });
  await h.installations.storeInstallation({
    team: { id: teamId, name: teamId },
    enterprise: undefined,
    user: { id: "UINSTALLER", token: undefined, scopes: undefined },
    bot: { id: "BBOT", userId: "UBOT", token: botToken, scopes: ["chat:write"] },
    isEnterpriseInstall: false,
    appId: "A0001",
    tokenType: "bot",
    authVersion: "v2",
  });
}

let seq = 0;
/** An Events API envelope for a user's message. */
export function messageEvent(teamId: string, patch: Record<string, unknown> = {}, eventId?: string) {
  seq += 1;
  const ts = (patch.ts as string | undefined) ?? `1710000000.${String(seq).padStart(6, "0")}`;
  return {
    token: "legacy-verification-token",
    team_id: teamId,
    api_app_id: "A0001",
    type: "event_callback",
    event_id: eventId ?? `Ev${seq}${Math.random().toString(36).slice(2, 8)}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: teamId, user_id: "UBOT", is_bot: true, is_enterprise_install: false }],
    event: { type: "message", channel: "C1", channel_type: "channel", user: "UREQ", text: "経費を登録してください", ts, event_ts: ts, ...patch },
  };
}

/** A block_actions payload for one button click. */
export function blockAction(teamId: string, userId: string, actionId: string, value: unknown, channel = "C1") {
  return {
    type: "block_actions",
    user: { id: userId, username: "u", team_id: teamId },
    api_app_id: "A0001",
    token: "legacy",
    team: { id: teamId, domain: "example" },
    channel: { id: channel, name: "general" },
    // Cards live in the request's thread, so Slack sends the thread's ts with the click.
    container: { type: "message", message_ts: "1800000000.000001", channel_id: channel, is_ephemeral: false, thread_ts: "1700000000.000001" },
    trigger_id: issueTriggerId(),
    message: { ts: "1800000000.000001", text: "card", thread_ts: "1700000000.000001" },
    response_url: "https://hooks.slack.invalid/actions/x",
    actions: [{ type: "button", action_id: actionId, block_id: "b1", value: JSON.stringify(value), action_ts: "1800000000.1" }],
  };
}

/** Slack's app_home_opened: `userId` opened the app's Home tab. */
export function homeOpened(teamId: string, userId: string) {
  return { ...messageEvent(teamId), event: { type: "app_home_opened", user: userId, channel: "D1", tab: "home", event_ts: "1710000000.9" } };
}

/** A block_actions payload from a control in App Home: the Home view is its container. */
export function homeBlockAction(teamId: string, userId: string, action: Record<string, unknown>, viewId = "V1") {
  return {
    type: "block_actions",
    user: { id: userId, team_id: teamId },
    team: { id: teamId, domain: "x" },
    api_app_id: "A0001",
    token: "t",
    trigger_id: issueTriggerId(),
    container: { type: "view", view_id: viewId },
    view: { id: viewId, type: "home", callback_id: "", team_id: teamId, private_metadata: "" },
    actions: [{ block_id: "b", action_ts: "1.1", ...action }],
  };
}

/** A view_submission of the reject modal. */
export function rejectSubmission(teamId: string, userId: string, metadata: unknown, reason: string | undefined) {
  return {
    type: "view_submission",
    team: { id: teamId, domain: "example" },
    user: { id: userId, username: "u", team_id: teamId },
    api_app_id: "A0001",
    token: "legacy",
    trigger_id: issueTriggerId(),
    view: {
      id: "V0001",
      team_id: teamId,
      type: "modal",
      callback_id: "reject_reason",
      private_metadata: JSON.stringify(metadata),
      blocks: [],
      state: { values: { reason: { reason_input: { type: "plain_text_input", value: reason ?? null } } } },
      hash: "h",
      title: { type: "plain_text", text: "却下理由" },
      app_id: "A0001",
      bot_id: "BBOT",
    },
  };
}
