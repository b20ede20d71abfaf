import { SFNClient } from "@aws-sdk/client-sfn";
import { localEndpointConfig } from "../../core/aws/local-endpoint";
import { SFN_CALL } from "../../core/config/client-budgets";
import type { Env } from "../../core/config/env";
import { boundedRequestHandler } from "../../core/config/request-handler";

/** Step Functions client; `SFN_ENDPOINT` points it at the local runner of `npm run dev`. */
export function createSfnClient(env: Env = process.env): SFNClient {
  return new SFNClient({
    maxAttempts: SFN_CALL.attempts,
    requestHandler: boundedRequestHandler(SFN_CALL),
    ...localEndpointConfig("SFN_ENDPOINT", env),
  });
}
