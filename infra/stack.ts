import { FatalConfigError } from "../lib/core/errors/taxonomy";
import { CfnOutput, Duration, Stack, type StackProps } from "aws-cdk-lib";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as logs from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { INGRESS_BUNDLING, WEB_BUNDLING, type LambdaBundling } from "./bundling";
import { AppFunction } from "./constructs/app-function";
import { DataConstruct, type SecretName } from "./constructs/data";
import { secretOutputName } from "./secret-names";
import { FreeeTokenRefresh, REFRESH_FREEE_TOKENS_TIMEOUT_SECONDS } from "./constructs/freee-token-refresh";
import { Observability } from "./constructs/observability";
import { Reconciler } from "./constructs/reconciler";
import { StateMachines } from "./constructs/state-machines";
import { lambdaTimeoutSeconds } from "./lambda-budgets";
import { acknowledgeFindings } from "./nag";
import { limitsEnvironment, type StackSettings } from "./settings";
import { grantTokenKey } from "./key-access";
import { grantTableAccess, readsInstallations, TABLE_ACCESS } from "./table-access";
import { PIPELINE_FUNCTIONS, RUN_FUNCTIONS, type StepFunctionName, type StepFunctions } from "./state-machines/functions";

export interface SlackMcpAgentStackProps extends StackProps {
  settings: StackSettings;
}

/** What each step Lambda needs beyond the table and Slack (least privilege: nothing else is granted). Timeouts are
 * derived from each function's worst-case work (infra/lambda-budgets.ts). */
const STEP_NEEDS: Record<StepFunctionName, { layers?: boolean; agent?: boolean; startsRun?: boolean; freee?: boolean }> = {
  "create-task": {},
  "analyze-task": { layers: true },
  "generate-prompt": { layers: true },
  "generate-process": { layers: true },
  // Reads freee with the workspace's connection: the token key (a refresh re-encrypts) and the app credentials.
  "preview-process": { freee: true },
  "await-approval": {},
  "handle-rejection": {},
  "expire-approval": {},
  "start-run": { startsRun: true },
  "record-pipeline-failure": {},
  "start-session": { agent: true },
  "poll-session": { agent: true },
  "record-run-failure": { agent: true },
};

/**
 * The whole app in one stack (docs/architecture.md, shape on AWS): table + keys + secrets, the Lambdas, the two state machines, the
 * public Function URLs (ingress, freee MCP) and the outputs the Slack manifest and the freee app need.
 */
export class SlackMcpAgentStack extends Stack {
  readonly data: DataConstruct;
  readonly functions: Record<StepFunctionName | "ingress" | "web" | "freee-mcp" | "refresh-freee-tokens" | "reconcile-execution", AppFunction>;
  readonly machines: StateMachines;
  readonly observability: Observability;

  constructor(scope: Construct, id: string, props: SlackMcpAgentStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const data = (this.data = new DataConstruct(this, "Data"));
    const logRetention = retentionOf(settings.logRetentionDays);
    const secretEnv = (...names: SecretName[]) => Object.fromEntries(names.map((n) => [`${n}_SECRET_ARN`, data.secrets[n].secretArn]));
    // The web admin's URL, for the links to it from App Home and the cards (known once publicBaseUrl is given).
    const baseEnv = { TABLE_NAME: data.table.tableName, ...limitsEnvironment(settings), ...(settings.publicBaseUrl === undefined ? {} : { WEB_ADMIN_URL: `${settings.publicBaseUrl.replace(/\/+$/, "")}/admin` }) };
    const make = (folder: string, id: string, environment: Record<string, string>, timeout: number, enableSourceMaps = true, bundling?: LambdaBundling) =>
      new AppFunction(this, id, { folder, environment: { ...baseEnv, ...environment }, timeout: Duration.seconds(timeout), logRetention, enableSourceMaps, ...(bundling === undefined ? {} : { bundling }) });

    // ---------------------------------------------------------------- freee MCP (the agent's tools)
    const freeeMcp = make(
      "freee-mcp",
      "FreeeMcp",
      { TOKEN_KMS_KEY_ID: data.tokenKey.keyArn, ...secretEnv("FREEE_CLIENT_ID", "FREEE_CLIENT_SECRET", "MCP_BEARER_SECRET") },
      lambdaTimeoutSeconds("freee-mcp"),
    );
    const freeeMcpUrl = freeeMcp.fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
    reserveConcurrency(freeeMcp, settings.freeeMcpReservedConcurrency);

    // ---------------------------------------------------------------- step Lambdas
    const steps = {} as Record<StepFunctionName, AppFunction>;
    for (const name of [...PIPELINE_FUNCTIONS, ...RUN_FUNCTIONS]) {
      const needs = STEP_NEEDS[name];
      // Cards resolve the workspace's bot token from its sealed installation (decrypt only).
      const opensInstallations = readsInstallations(TABLE_ACCESS[name]);
      const env: Record<string, string> = opensInstallations ? { TOKEN_KMS_KEY_ID: data.tokenKey.keyArn } : {};
      if (needs.layers) {
        Object.assign(env, secretEnv("ANTHROPIC_API_KEY"), { L1_MODEL: settings.l1Model, L2_MODEL: settings.l2Model, L3_MODEL: settings.l3Model });
      }
      // The bearer secret only where bearers are minted (the session's vault credential): StartSession.
      const mintsBearers = name === "start-session";
      if (needs.agent) {
        Object.assign(env, secretEnv("ANTHROPIC_API_KEY", ...(mintsBearers ? (["MCP_BEARER_SECRET"] as const) : [])), { MCP_SERVER_URL: freeeMcpUrl.url, AGENT_MODEL: settings.agentModel });
      }
      if (needs.freee) Object.assign(env, { TOKEN_KMS_KEY_ID: data.tokenKey.keyArn }, secretEnv("FREEE_CLIENT_ID", "FREEE_CLIENT_SECRET"));
      steps[name] = make(name, pascal(name), env, lambdaTimeoutSeconds(name));
      grantTableAccess(data, steps[name].fn, TABLE_ACCESS[name]);
      if (opensInstallations) grantTokenKey(data, steps[name].fn, "installation", { decrypt: true });
      if (needs.freee) {
        // freee tokens: opened for reads, sealed again after a refresh.
        grantTokenKey(data, steps[name].fn, "freee", { decrypt: true, encrypt: true });
        data.secrets.FREEE_CLIENT_ID.grantRead(steps[name].fn);
        data.secrets.FREEE_CLIENT_SECRET.grantRead(steps[name].fn);
      }
      if (needs.layers) data.secrets.ANTHROPIC_API_KEY.grantRead(steps[name].fn);
      if (needs.agent) {
        data.secrets.ANTHROPIC_API_KEY.grantRead(steps[name].fn);
        if (mintsBearers) data.secrets.MCP_BEARER_SECRET.grantRead(steps[name].fn);
      }
    }
    const stepFns = Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, v.fn])) as unknown as StepFunctions;
    this.machines = new StateMachines(this, "Machines", {
      functions: stepFns,
      approvalTimeoutSeconds: settings.approvalTimeoutSeconds,
      pollIntervalSeconds: settings.pollIntervalSeconds,
      logRetention,
    });
    steps["start-run"].fn.addEnvironment("EXECUTION_RUN_ARN", this.machines.executionRun.stateMachineArn);
    this.machines.executionRun.grantStartExecution(steps["start-run"].fn);

    // ---------------------------------------------------------------- the second line: a machine that ended FAILED / TIMED_OUT / ABORTED
    const reconcile = make(
      "reconcile-execution",
      "ReconcileExecution",
      { TOKEN_KMS_KEY_ID: data.tokenKey.keyArn, ...secretEnv("ANTHROPIC_API_KEY"), MCP_SERVER_URL: freeeMcpUrl.url, AGENT_MODEL: settings.agentModel },
      lambdaTimeoutSeconds("reconcile-execution"),
    );
    const reconciler = new Reconciler(this, "Reconciler", { fn: reconcile.fn, machines: this.machines, data });

    grantTableAccess(data, freeeMcp.fn, TABLE_ACCESS["freee-mcp"]);
    // freee tokens (opened, sealed again after a refresh); the bot token of a file-box upload's Slack file.
    grantTokenKey(data, freeeMcp.fn, "freee", { decrypt: true, encrypt: true });
    grantTokenKey(data, freeeMcp.fn, "installation", { decrypt: true });
    for (const n of ["FREEE_CLIENT_ID", "FREEE_CLIENT_SECRET", "MCP_BEARER_SECRET"] as const) data.secrets[n].grantRead(freeeMcp.fn);

    // ---------------------------------------------------------------- web pages (Slack install, freee connect)
    // Apart from the Slack ingress, so the ingress bundle (and its cold start) carries neither OAuth flow.
    const web = make(
      "web",
      "Web",
      {
        TOKEN_KMS_KEY_ID: data.tokenKey.keyArn,
        ...secretEnv("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_STATE_SECRET", "FREEE_CLIENT_ID", "FREEE_CLIENT_SECRET", "FREEE_STATE_SECRET"),
        ...(settings.publicBaseUrl === undefined ? {} : { PUBLIC_BASE_URL: settings.publicBaseUrl }),
      },
      // Pages a person waits on: the freee callback's token exchange and company list have 10 s timeouts each.
      30,
      true,
      WEB_BUNDLING,
    );
    const webUrl = web.fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
    reserveConcurrency(web, settings.webReservedConcurrency);
    grantTableAccess(data, web.fn, TABLE_ACCESS.web);
    // A reconnect to another freee company ends the approval waits of the plans it invalidated (failure only).
    this.machines.taskPipeline.grant(web.fn, "states:SendTaskFailure");
    // Slack installs are sealed and opened here; freee tokens only sealed (the callback saves them, never reads them).
    grantTokenKey(data, web.fn, "installation", { decrypt: true, encrypt: true });
    grantTokenKey(data, web.fn, "freee", { encrypt: true });
    for (const n of ["SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_STATE_SECRET", "FREEE_CLIENT_ID", "FREEE_CLIENT_SECRET", "FREEE_STATE_SECRET"] as const) {
      data.secrets[n].grantRead(web.fn);
    }

    // ---------------------------------------------------------------- Slack ingress (events and interactivity)
    const ingress = make(
      "ingress",
      "Ingress",
      {
        TASK_PIPELINE_ARN: this.machines.taskPipeline.stateMachineArn,
        EXECUTION_RUN_ARN: this.machines.executionRun.stateMachineArn,
        // App Home's connect button links to the web Lambda, signed with the freee state secret.
        FREEE_CONNECT_BASE_URL: settings.publicBaseUrl ?? webUrl.url,
        TOKEN_KMS_KEY_ID: data.tokenKey.keyArn,
        ...secretEnv("SLACK_SIGNING_SECRET", "FREEE_STATE_SECRET"),
      },
      // Not derived from a retry budget: Slack's 3 s is the budget; a request still running at 10 s has failed.
      10,
      // The 3 s budget includes a cold start: no source-map parsing at load, no unused Bolt receivers and no
      // OAuth flows in the bundle (npm run bench measures both).
      false,
      INGRESS_BUNDLING,
    );
    const ingressUrl = ingress.fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
    reserveConcurrency(ingress, settings.ingressReservedConcurrency);
    grantTableAccess(data, ingress.fn, TABLE_ACCESS.ingress);
    // Opens sealed installations (bot tokens) and seals any plain item an earlier version left.
    // Installations only (bot tokens; plain items sealed): the public ingress never opens freee tokens.
    grantTokenKey(data, ingress.fn, "installation", { decrypt: true, encrypt: true });
    for (const n of ["SLACK_SIGNING_SECRET", "FREEE_STATE_SECRET"] as const) data.secrets[n].grantRead(ingress.fn);
    this.machines.taskPipeline.grantStartExecution(ingress.fn);
    this.machines.executionRun.grantStartExecution(ingress.fn);
    this.machines.taskPipeline.grantTaskResponse(ingress.fn);

    // ---------------------------------------------------------------- daily freee token refresh (90-day refresh tokens)
    const refreshFreeeTokens = make(
      "refresh-freee-tokens",
      "RefreshFreeeTokens",
      { TOKEN_KMS_KEY_ID: data.tokenKey.keyArn, FREEE_REFRESH_AFTER_DAYS: String(settings.freeeRefreshAfterDays), ...secretEnv("FREEE_CLIENT_ID", "FREEE_CLIENT_SECRET") },
      REFRESH_FREEE_TOKENS_TIMEOUT_SECONDS,
    );
    new FreeeTokenRefresh(this, "FreeeTokenRefresh", { fn: refreshFreeeTokens, data });

    this.functions = { ...steps, ingress, web, "freee-mcp": freeeMcp, "refresh-freee-tokens": refreshFreeeTokens, "reconcile-execution": reconcile };

    // ---------------------------------------------------------------- alarms and dashboard (SNS topic)
    this.observability = new Observability(this, "Observability", {
      stateMachines: { TaskPipeline: this.machines.taskPipeline, ExecutionRun: this.machines.executionRun },
      functions: Object.fromEntries(Object.entries(this.functions).map(([name, f]) => [pascal(name), f.fn])),
      table: data.table,
      ...(settings.alarmEmail === undefined ? {} : { alarmEmail: settings.alarmEmail }),
    });

    // ---------------------------------------------------------------- outputs (Slack manifest, freee app, operator)
    const out = (id: string, value: string, description: string) => new CfnOutput(this, id, { value, description });
    out("IngressUrl", ingressUrl.url, "Slack ingress Function URL (events and interactivity)");
    out("SlackEventsUrl", `${ingressUrl.url}slack/events`, "Slack manifest: event_subscriptions.request_url and interactivity.request_url");
    out("WebUrl", webUrl.url, "Web Function URL (Slack install and freee connect pages; PUBLIC_BASE_URL points here)");
    out("SlackInstallUrl", `${webUrl.url}slack/install`, "Open to install the app in a workspace");
    out("SlackOAuthRedirectUrl", `${webUrl.url}slack/oauth_redirect`, "Slack manifest: oauth_config.redirect_urls");
    out("FreeeConnectUrl", `${webUrl.url}freee/connect`, "Starts the freee OAuth for a workspace (App Home button)");
    out("FreeeCallbackUrl", `${webUrl.url}freee/callback`, "freee app settings: callback URL");
    out("FreeeMcpUrl", freeeMcpUrl.url, "freee MCP server the Managed Agents session calls");
    out("TableName", data.table.tableName, "DynamoDB table");
    out("TaskPipelineArn", this.machines.taskPipeline.stateMachineArn, "TaskPipeline state machine");
    out("ExecutionRunArn", this.machines.executionRun.stateMachineArn, "ExecutionRun state machine");
    out("AlarmTopicArn", this.observability.alarmTopic.topicArn, "SNS topic every alarm notifies (subscribe on-call here)");
    for (const [name, secret] of Object.entries(data.secrets)) out(secretOutputName(name as SecretName), secret.secretArn, `Secrets Manager: ${name}`);

    reconciler.alarmOn(this.observability.alarmTopic);
    acknowledgeFindings(this, { functions: Object.values(this.functions), data, machines: this.machines, reconciler });
  }
}

/**
 * A public Function URL gets its own slice of the account's concurrency: a flood of requests can neither take
 * more nor starve the step Lambdas (the failure paths among them). 0 leaves the function unreserved.
 */
function reserveConcurrency(fn: AppFunction, reserved: number): void {
  if (reserved > 0) (fn.fn.node.defaultChild as lambda.CfnFunction).reservedConcurrentExecutions = reserved;
}

function pascal(folder: string): string {
  return folder
    .split("-")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");
}

function retentionOf(days: number): logs.RetentionDays {
  const allowed = Object.values(logs.RetentionDays).filter((v): v is number => typeof v === "number");
  if (!allowed.includes(days)) throw new FatalConfigError(`logRetentionDays ${days} is not a CloudWatch retention (${allowed.join(", ")})`, { details: { setting: "logRetentionDays" } });
  return days as logs.RetentionDays;
}
