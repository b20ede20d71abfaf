import { optionalEnv, type Env } from "../config/env";

/**
 * AWS SDK client settings for a local stand-in (DynamoDB Local, a scripted KMS, the local Step
 * Functions facade): when `endpointVar` is set, the client talks to that endpoint with placeholder credentials;
 * otherwise nothing is overridden and the Lambda's own region and role apply.
 */
export function localEndpointConfig(endpointVar: string, env: Env = process.env) {
  const endpoint = optionalEnv(endpointVar, env);
  if (endpoint === undefined) return {};
  return {
    endpoint,
    region: optionalEnv("AWS_REGION", env) ?? "local",
    credentials: {
      accessKeyId: optionalEnv("AWS_ACCESS_KEY_ID", env) ?? "local",
      secretAccessKey: optionalEnv("AWS_SECRET_ACCESS_KEY", env) ?? "local",
    },
  };
}
