import { slackSignatureHeaders } from "../dev/local/slack-signature";
import { OPERATOR_SECRETS, SECRET_NAMES, secretOutputName } from "../infra/secret-names";
import type { SmokeAws } from "./smoke-aws";

/** One line of `npm run smoke`: what was checked, whether it holds, and for a failure what to do. */
export interface SmokeResult {
  check: string;
  status: "ok" | "FAIL" | "skip";
  detail: string;
  fix?: string;
}

export type StackOutputs = Record<string, string>;

const TIMEOUT_MS = 10_000;
const join = (base: string, path: string) => `${base.replace(/\/+$/, "")}/${path}`;

/**
 * What a person would otherwise check by hand after `cdk deploy` (docs/infra.md → After the first deploy): each
 * Function URL answers its health route, the web URL serves the install page, the ingress verifies a signed
 * url_verification, each secret the stack outputs has a value (metadata only; the signing secret's value is read
 * to sign, never printed), and the alarm topic has a subscriber.
 */
export async function runSmoke(outputs: StackOutputs, aws: SmokeAws, env: NodeJS.ProcessEnv = process.env): Promise<SmokeResult[]> {
  const results: SmokeResult[] = [];
  for (const [output, fn] of [["IngressUrl", "ingress"], ["WebUrl", "web"], ["FreeeMcpUrl", "freee-mcp"]] as const) results.push(await health(outputs, output, fn));
  results.push(await installPage(outputs));
  const secrets = await secretChecks(outputs, aws);
  results.push(await urlVerification(outputs, aws, env), ...secrets, await alarmTopic(outputs, aws));
  return results;
}

async function health(outputs: StackOutputs, output: string, fn: string): Promise<SmokeResult> {
  const check = `${fn} health`;
  const base = outputs[output];
  if (base === undefined) return { check, status: "FAIL", detail: `the outputs have no ${output}`, fix: "pass the file `npx cdk deploy --outputs-file cdk-outputs.json` wrote for this stack" };
  const url = join(base, "healthz");
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    const body = (await res.json().catch(() => undefined)) as { ok?: unknown; function?: unknown } | undefined;
    if (res.status !== 200 || body?.ok !== true) return { check, status: "FAIL", detail: `${url} answered ${res.status}`, fix: `redeploy (\`npx cdk deploy --outputs-file cdk-outputs.json\`); the ${fn} Lambda's log group says why it does not answer` };
    if (typeof body.function === "string" && body.function !== fn) return { check, status: "FAIL", detail: `${url} is the ${body.function} function, not ${fn}`, fix: "the outputs file is of another stack or an older deploy: deploy again with --outputs-file cdk-outputs.json" };
    return { check, status: "ok", detail: `${url} answers 200` };
  } catch (err) {
    return { check, status: "FAIL", detail: `${url} does not answer (${errorText(err)})`, fix: "check the URL in the outputs file and that the stack is deployed in this account and region" };
  }
}

async function installPage(outputs: StackOutputs): Promise<SmokeResult> {
  const check = "Slack install page";
  const url = outputs.SlackInstallUrl;
  if (url === undefined) return { check, status: "FAIL", detail: "the outputs have no SlackInstallUrl", fix: "pass the outputs file of this stack" };
  try {
    const res = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
    const location = res.headers.get("location") ?? "";
    if (res.status === 302 && location.startsWith("https://slack.com/oauth/v2/authorize")) return { check, status: "ok", detail: `${url} redirects to Slack's consent page` };
    if (res.status === 404) return { check, status: "FAIL", detail: `${url} answered 404: no install flow`, fix: "fill SLACK_CLIENT_ID and SLACK_CLIENT_SECRET (Slack app → Basic Information), and leave SLACK_BOT_TOKEN unset on the web Lambda" };
    return { check, status: "FAIL", detail: `${url} answered ${res.status}${location === "" ? "" : ` → ${location.slice(0, 60)}`}`, fix: "fill SLACK_CLIENT_ID and SLACK_CLIENT_SECRET; the web Lambda's log group says what failed" };
  } catch (err) {
    return { check, status: "FAIL", detail: `${url} does not answer (${errorText(err)})`, fix: "check that the web Function URL in the outputs is this stack's" };
  }
}

async function urlVerification(outputs: StackOutputs, aws: SmokeAws, env: NodeJS.ProcessEnv): Promise<SmokeResult> {
  const check = "Slack url_verification";
  const url = outputs.SlackEventsUrl;
  if (url === undefined) return { check, status: "FAIL", detail: "the outputs have no SlackEventsUrl", fix: "pass the outputs file of this stack" };
  const arn = outputs[secretOutputName("SLACK_SIGNING_SECRET")];
  let secret: string | undefined;
  try {
    secret = arn === undefined ? env.SLACK_SIGNING_SECRET : await aws.secretValue(arn);
  } catch (err) {
    return { check, status: "FAIL", detail: `cannot read SLACK_SIGNING_SECRET (${errorText(err)})`, fix: "sign in to the stack's account (`aws sso login` / AWS_PROFILE) with secretsmanager:GetSecretValue on it" };
  }
  if (secret === undefined) return { check, status: "skip", detail: "no SlackSigningSecretSecretArn output and no SLACK_SIGNING_SECRET to sign with" };
  const challenge = `smoke-${Date.now()}`;
  const body = JSON.stringify({ token: "smoke", challenge, type: "url_verification" });
  try {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...slackSignatureHeaders(body, secret) }, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
    const answer = (await res.json().catch(() => undefined)) as { challenge?: unknown } | undefined;
    if (res.status === 200 && answer?.challenge === challenge) return { check, status: "ok", detail: `${url} answers the challenge of a signed request` };
    if (res.status === 401) return { check, status: "FAIL", detail: `${url} refused the signature (401)`, fix: "put the Signing Secret of the Slack app (Basic Information) into SLACK_SIGNING_SECRET: `aws secretsmanager put-secret-value`" };
    return { check, status: "FAIL", detail: `${url} answered ${res.status}`, fix: "the ingress Lambda's log group says why" };
  } catch (err) {
    return { check, status: "FAIL", detail: `${url} does not answer (${errorText(err)})`, fix: "check the ingress Function URL in the outputs" };
  }
}

async function secretChecks(outputs: StackOutputs, aws: SmokeAws): Promise<SmokeResult[]> {
  const named = SECRET_NAMES.filter((n) => outputs[secretOutputName(n)] !== undefined);
  if (named.length === 0) return [{ check: "secrets", status: "skip", detail: "the outputs name no secret (the local stack keeps them in .env / DATA_DIR)" }];
  const results: SmokeResult[] = [];
  for (const name of SECRET_NAMES) {
    const check = `secret ${name}`;
    const arn = outputs[secretOutputName(name)];
    if (arn === undefined) {
      results.push({ check, status: "FAIL", detail: `the outputs have no ${secretOutputName(name)}`, fix: "deploy the current stack with --outputs-file cdk-outputs.json" });
      continue;
    }
    try {
      const versions = await aws.secretVersions(arn);
      if (versions === 0) results.push({ check, status: "FAIL", detail: "has no value", fix: putFix(arn) });
      // The stack created it with a random placeholder: only a put-secret-value adds the operator's value.
      else if (OPERATOR_SECRETS.includes(name) && versions < 2) results.push({ check, status: "FAIL", detail: "still holds the value the stack generated", fix: putFix(arn) });
      else results.push({ check, status: "ok", detail: OPERATOR_SECRETS.includes(name) ? "filled" : "generated by the stack (needs nothing)" });
    } catch (err) {
      results.push({ check, status: "FAIL", detail: `cannot describe it (${errorText(err)})`, fix: "sign in to the stack's account with secretsmanager:DescribeSecret on it" });
    }
  }
  return results;
}

const putFix = (arn: string) => `aws secretsmanager put-secret-value --secret-id ${arn} --secret-string '…' (docs/infra.md → Secrets)`;

async function alarmTopic(outputs: StackOutputs, aws: SmokeAws): Promise<SmokeResult> {
  const check = "alarm subscriber";
  const arn = outputs.AlarmTopicArn;
  if (arn === undefined) return { check, status: "skip", detail: "the outputs name no AlarmTopicArn (the local stack has no alarms)" };
  const fix = `subscribe on-call: aws sns subscribe --topic-arn ${arn} --protocol email --notification-endpoint you@example.com (and confirm the e-mail), or deploy with -c alarmEmail=…`;
  try {
    const subscriptions = await aws.subscriptions(arn);
    const confirmed = subscriptions.filter((s) => s.startsWith("arn:"));
    if (confirmed.length > 0) return { check, status: "ok", detail: `${confirmed.length} confirmed subscription(s)` };
    return { check, status: "FAIL", detail: subscriptions.length > 0 ? "the subscription is not confirmed yet" : "nobody is subscribed to the alarm topic", fix };
  } catch (err) {
    return { check, status: "FAIL", detail: `cannot list its subscriptions (${errorText(err)})`, fix: "sign in to the stack's account with sns:ListSubscriptionsByTopic on it" };
  }
}

function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : "";
  return `${err.name}: ${err.message.split("\n")[0]}${cause}`.slice(0, 160);
}
