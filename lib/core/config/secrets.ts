import { SecretsProvider } from "@aws-lambda-powertools/parameters/secrets";
import { AWS_CONTROL_CALL } from "./client-budgets";
import { FatalConfigError } from "../errors/taxonomy";
import { registerSecret } from "../redaction/secret-registry";
import { optionalEnv, type Env } from "./env";
import { boundedRequestHandler } from "./request-handler";
import { localEndpointConfig } from "../aws/local-endpoint";

/**
 * A secret comes from the environment (local dev, tests) or, on AWS, from Secrets Manager by ARN
 * (`<NAME>_SECRET_ARN`), cached by Powertools Parameters. Missing both is a FatalConfigError; the value is
 * never logged: it is registered with the redactor, which removes it from every log line, audit entry and
 * thrown error of this process.
 */
const providers = new Map<string, SecretsProvider>();
/**
 * One provider per process (its cache is what keeps warm invocations off Secrets Manager), with bounded calls.
 * `SECRETS_MANAGER_ENDPOINT` points it at a local stand-in, one provider per endpoint and identity (the tests
 * that record which Lambda reads which secret run several in one process).
 */
function secretsProvider(env: Env): SecretsProvider {
  const local = localEndpointConfig("SECRETS_MANAGER_ENDPOINT", env);
  const id = local.endpoint === undefined ? "" : `${local.endpoint}#${local.credentials?.accessKeyId ?? ""}`;
  let provider = providers.get(id);
  if (provider === undefined) {
    provider = new SecretsProvider({
      clientConfig: {
        maxAttempts: AWS_CONTROL_CALL.attempts,
        requestHandler: boundedRequestHandler(AWS_CONTROL_CALL),
        ...local,
      },
    });
    providers.set(id, provider);
  }
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
    value = await secretsProvider(env).get(arn, { maxAge: 300 });
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
