/**
 * The stack's secrets (infra/constructs/data.ts creates them); the name is the env var prefix the Lambdas read
 * (`<NAME>_SECRET_ARN`). Apart from the construct so `npm run smoke` knows them without loading aws-cdk-lib.
 */
export const SECRET_NAMES = [
  "SLACK_SIGNING_SECRET",
  "SLACK_CLIENT_ID",
  "SLACK_CLIENT_SECRET",
  "SLACK_STATE_SECRET",
  "ANTHROPIC_API_KEY",
  "FREEE_CLIENT_ID",
  "FREEE_CLIENT_SECRET",
  "MCP_BEARER_SECRET",
  "FREEE_STATE_SECRET",
] as const;
/** Secrets the operator must fill with values from Slack / Anthropic / freee. */
export const OPERATOR_SECRETS: readonly SecretName[] = [
  "SLACK_SIGNING_SECRET",
  "SLACK_CLIENT_ID",
  "SLACK_CLIENT_SECRET",
  "ANTHROPIC_API_KEY",
  "FREEE_CLIENT_ID",
  "FREEE_CLIENT_SECRET",
];
export type SecretName = (typeof SECRET_NAMES)[number];

/** The stack output that gives a secret's ARN: SLACK_SIGNING_SECRET → SlackSigningSecretSecretArn. */
export function secretOutputName(name: SecretName): string {
  const pascal = name.toLowerCase().split("_").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");
  return `${pascal}SecretArn`;
}
