import { SecretsProvider } from "@aws-lambda-powertools/parameters/secrets";
import { AWS_CONTROL_CALL } from "./client-budgets";
import { FatalConfigError } from "../errors/taxonomy";
import { registerSecret } from "../redaction/secret-registry";
import { optionalEnv, type Env } from "./env";
import { boundedRequestHandler } from "./request-handler";

/**
 * A secret comes from the environment (local dev, tests) or, on AWS, from Secrets Manager by ARN
 * (`<NAME>_SECRET_ARN`), cached by Powertools Parameters. Missing both is a FatalConfigError; the value is
 * never logged: it is registered with the redactor, which removes it from every log line, audit entry and
 * thrown error of this process.
 */
let provider: SecretsProvider | undefined;
/** One provider per process (its cache is what keeps warm invocations off Secrets Manager), with bounded calls. */
function secretsProvider(): SecretsProvider {
  provider ??= new SecretsProvider({
    clientConfig: {
      maxAttempts: AWS_CONTROL_CALL.attempts,
      requestHandler: boundedRequestHandler(AWS_CONTROL_CALL),
    },
  });
  return provider;
}

export async function resolveSecret(name: string, env: Env = process.env): Promise<string> {
  const direct = optionalEnv(name, env);
  if (direct !== undefined) {
    registerSecret(direct);
    return direct;
  }
  const arn = optionalEnv(`${name}_SECRET_ARN`, env);
  if (arn === undefined) {
    throw new FatalConfigError(`missing secret ${name} (set ${name} or ${name}_SECRET_ARN)`, {
      details: { setting: name },
    });
  }
  let value: unknown;
  try {
    value = await secretsProvider().get(arn, { maxAge: 300 });
  } catch (cause) {
    throw new FatalConfigError(`cannot read secret ${name}`, { cause, details: { setting: name } });
  }
  if (typeof value !== "string" || value.trim() === "") {
    throw new FatalConfigError(`secret ${name} is empty: fill it in Secrets Manager (see README, deploy)`, {
      details: { setting: name },
    });
  }
  registerSecret(value);
  return value;
}
