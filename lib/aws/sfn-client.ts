import { SFNClient } from "@aws-sdk/client-sfn";
import { localEndpointConfig } from "./local-endpoint";
import type { Env } from "../config/env";

/** Step Functions client; `SFN_ENDPOINT` points it at the local runner of `npm run dev`. */
export function createSfnClient(env: Env = process.env): SFNClient {
  return new SFNClient({ maxAttempts: 2, ...localEndpointConfig("SFN_ENDPOINT", env) });
}
