#!/usr/bin/env node
// Fill slack/manifest.yaml's URL placeholders from the stack outputs and print the result (or write --out).
//   npx cdk deploy --outputs-file cdk-outputs.json
//   node scripts/fill-manifest.mjs --outputs cdk-outputs.json --out slack/manifest.filled.yaml
// Without --outputs, SLACK_EVENTS_URL and SLACK_OAUTH_REDIRECT_URL (or INGRESS_URL and WEB_URL) are read from the environment.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const USAGE = `usage: node scripts/fill-manifest.mjs --outputs cdk-outputs.json [--out slack/manifest.filled.yaml] [--manifest slack/manifest.yaml]
  --outputs   the file \`npx cdk deploy --outputs-file cdk-outputs.json\` wrote (SlackEventsUrl, SlackOAuthRedirectUrl)
  --out       write the filled manifest here (default: print it)
  without --outputs: INGRESS_URL and WEB_URL (the IngressUrl and WebUrl outputs: events go to the ingress, the
  OAuth redirect to the web pages), or SLACK_EVENTS_URL and SLACK_OAUTH_REDIRECT_URL, from the environment`;

/** A problem with the inputs: one line saying what and how to fix it, exit 1 (no stack trace). */
function fail(message, fix) {
  process.stderr.write(`fill-manifest: ${message} — ${fix}\n`);
  process.exit(1);
}

let flags;
try {
  flags = parseArgs({ options: { outputs: { type: "string" }, out: { type: "string" }, manifest: { type: "string" }, help: { type: "boolean", short: "h" } } }).values;
} catch (err) {
  if (!String(err?.code).startsWith("ERR_PARSE_ARGS")) throw err;
  fail(err.message, "node scripts/fill-manifest.mjs --outputs cdk-outputs.json [--out slack/manifest.filled.yaml] [--manifest slack/manifest.yaml]");
}
const arg = (name) => flags[name.replace(/^--/, "")];

if (flags.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

function fromOutputs(file) {
  if (!existsSync(file)) fail(`${file} does not exist`, "deploy with `npx cdk deploy --outputs-file cdk-outputs.json` first, then pass that file");
  let parsed;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    fail(`${file} is not JSON (${err.message})`, "pass the file `npx cdk deploy --outputs-file` wrote");
  }
  // cdk --outputs-file: { "<StackName>": { "SlackEventsUrl": "...", ... } }
  for (const outputs of Object.values(parsed ?? {})) {
    if (outputs && typeof outputs === "object" && "SlackEventsUrl" in outputs) {
      return { SLACK_EVENTS_URL: outputs.SlackEventsUrl, SLACK_OAUTH_REDIRECT_URL: outputs.SlackOAuthRedirectUrl };
    }
  }
  return fail(`${file} has no stack with a SlackEventsUrl output`, "pass the outputs file of the SlackMcpAgent stack (npx cdk deploy --outputs-file …)");
}

function fromEnv() {
  const ingress = process.env.INGRESS_URL?.replace(/\/?$/, "/");
  const web = process.env.WEB_URL?.replace(/\/?$/, "/");
  return {
    SLACK_EVENTS_URL: process.env.SLACK_EVENTS_URL ?? (ingress && `${ingress}slack/events`),
    SLACK_OAUTH_REDIRECT_URL: process.env.SLACK_OAUTH_REDIRECT_URL ?? (web && `${web}slack/oauth_redirect`),
  };
}

const outputsFile = arg("--outputs");
const values = outputsFile ? fromOutputs(outputsFile) : fromEnv();
if (outputsFile === undefined && Object.values(values).every((v) => v === undefined)) {
  // Nothing to fill from: say how to call it.
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
for (const [name, value] of Object.entries(values)) {
  if (typeof value !== "string" || !/^https:\/\//.test(value)) {
    fail(`${name} is missing or not an https URL (got ${JSON.stringify(value)})`, "pass --outputs cdk-outputs.json, or set INGRESS_URL and WEB_URL to the stack's IngressUrl and WebUrl outputs");
  }
}
const here = dirname(fileURLToPath(import.meta.url));
const manifestFile = arg("--manifest") ?? join(here, "..", "slack", "manifest.yaml");
if (!existsSync(manifestFile)) fail(`${manifestFile} does not exist`, "run it from the repository, or pass --manifest slack/manifest.yaml");
const template = readFileSync(manifestFile, "utf8");
const filled = template.replace(/\$\{(SLACK_EVENTS_URL|SLACK_OAUTH_REDIRECT_URL)\}/g, (_m, name) => values[name]);
const out = arg("--out");
if (out) writeFileSync(out, filled);
else process.stdout.write(filled);
