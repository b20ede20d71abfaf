#!/usr/bin/env node
// Fill slack/manifest.yaml's URL placeholders from the stack outputs and print the result (or write --out).
//   npx cdk deploy --outputs-file cdk-outputs.json
//   node scripts/fill-manifest.mjs --outputs cdk-outputs.json --out slack/manifest.filled.yaml
// Without --outputs, SLACK_EVENTS_URL and SLACK_OAUTH_REDIRECT_URL (or INGRESS_URL) are read from the environment.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const arg = (name) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};

function fromOutputs(file) {
  const parsed = JSON.parse(readFileSync(file, "utf8"));
  // cdk --outputs-file: { "<StackName>": { "SlackEventsUrl": "...", ... } }
  for (const outputs of Object.values(parsed)) {
    if (outputs && typeof outputs === "object" && "SlackEventsUrl" in outputs) {
      return { SLACK_EVENTS_URL: outputs.SlackEventsUrl, SLACK_OAUTH_REDIRECT_URL: outputs.SlackOAuthRedirectUrl };
    }
  }
  throw new Error(`${file} has no stack with a SlackEventsUrl output`);
}

function fromEnv() {
  const base = process.env.INGRESS_URL?.replace(/\/?$/, "/");
  return {
    SLACK_EVENTS_URL: process.env.SLACK_EVENTS_URL ?? (base && `${base}slack/events`),
    SLACK_OAUTH_REDIRECT_URL: process.env.SLACK_OAUTH_REDIRECT_URL ?? (base && `${base}slack/oauth_redirect`),
  };
}

const values = arg("--outputs") ? fromOutputs(arg("--outputs")) : fromEnv();
for (const [name, value] of Object.entries(values)) {
  if (typeof value !== "string" || !/^https:\/\//.test(value)) {
    console.error(`fill-manifest: ${name} is missing or not an https URL (got ${JSON.stringify(value)})`);
    process.exit(1);
  }
}
const here = dirname(fileURLToPath(import.meta.url));
const template = readFileSync(arg("--manifest") ?? join(here, "..", "slack", "manifest.yaml"), "utf8");
const filled = template.replace(/\$\{(SLACK_EVENTS_URL|SLACK_OAUTH_REDIRECT_URL)\}/g, (_m, name) => values[name]);
const out = arg("--out");
if (out) writeFileSync(out, filled);
else process.stdout.write(filled);
