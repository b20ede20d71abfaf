/**
 * How the repo's commands end on a configuration problem: one line on stderr — what is wrong, then how to fix
 * it — and exit code 1, never a stack trace. Anything else is a bug and keeps its stack (rethrown).
 */
export class UsageError extends Error {
  override readonly name: string = "UsageError";
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
  }
}

/** What to do about a missing or bad setting, by its name (FatalConfigError's `details.setting`). */
const SETTING_FIXES: Record<string, string> = {
  TABLE_NAME: "start `npm run dev` in another terminal (the report finds its table), or set TABLE_NAME and AWS_REGION for a deployed stack",
  SLACK_SIGNING_SECRET: "add SLACK_SIGNING_SECRET to .env (Slack app → Basic Information → Signing Secret), or remove the Slack credentials for the sandbox",
  SLACK_BOT_TOKEN: "check SLACK_BOT_TOKEN in .env (OAuth & Permissions → Bot User OAuth Token), or remove it for the sandbox",
  ANTHROPIC_API_KEY: "check ANTHROPIC_API_KEY in .env, or remove it for the scripted model",
  java: "install Java 17 (Debian/Ubuntu: apt-get install openjdk-17-jre-headless; macOS: brew install openjdk@17) and put `java` on PATH, or set DYNAMODB_ENDPOINT to a DynamoDB Local you run",
};

export function fixFor(err: unknown): { message: string; fix: string } | undefined {
  if (err instanceof UsageError) return { message: err.message, fix: err.fix };
  if (!(err instanceof Error)) return undefined;
  if (err.name === "FatalConfigError") {
    const setting = (err as { details?: { setting?: unknown } }).details?.setting;
    const name = typeof setting === "string" ? setting : undefined;
    return { message: err.message, fix: (name && SETTING_FIXES[name]) ?? (name ? `set ${name} in .env or the environment (every setting is listed in .env.example)` : "check the settings in .env against .env.example") };
  }
  // The AWS SDK's own configuration errors (no region, no credentials) when no endpoint or region was given.
  if (/Region is missing/i.test(err.message)) return { message: "no AWS region", fix: "set AWS_REGION (and TABLE_NAME) for a deployed stack, or start `npm run dev` for the local one" };
  if (err.name === "CredentialsProviderError") return { message: "no AWS credentials", fix: "sign in (`aws configure` / `aws sso login`) or set AWS_PROFILE" };
  if (err.name === "ResourceNotFoundException") return { message: err.message, fix: "check TABLE_NAME and AWS_REGION: they must name the stack's table (the TableName output)" };
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS")) return { message: err.message, fix: "check the flags (README.md → Commands lists each command's)" };
  if (code === "EADDRINUSE") return { message: err.message, fix: "another process holds the port: stop it, or set PORT (PORT=0 picks a free one)" };
  if (code === "ECONNREFUSED") return { message: err.message, fix: "the endpoint does not answer: is `npm run dev` still running?" };
  return undefined;
}

/** Run a command's body; a configuration problem ends it with `<command>: <what> — <fix>` and exit code 1. */
export async function runCli(command: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    const known = fixFor(err) ?? fixFor((err as { cause?: unknown })?.cause);
    if (known === undefined) throw err;
    process.stderr.write(`${command}: ${known.message.split("\n")[0]} — ${known.fix}\n`);
    process.exit(1);
  }
}
