import { SFNClient } from "@aws-sdk/client-sfn";
import { optionalEnv, type Env } from "../config/env";

/** Step Functions client; `SFN_ENDPOINT` points it at the local runner of `npm run dev`. */
export function createSfnClient(env: Env = process.env): SFNClient {
  const endpoint = optionalEnv("SFN_ENDPOINT", env);
  return new SFNClient({
    maxAttempts: 2,
    ...(endpoint === undefined
      ? {}
      : { endpoint, region: optionalEnv("AWS_REGION", env) ?? "local", credentials: { accessKeyId: "local", secretAccessKey: "local" } }),
  });
}
