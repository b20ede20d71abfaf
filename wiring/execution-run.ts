import { requireEnv } from "../lib/core/config/env";
import { createSfnClient } from "../lib/steps/machines/sfn-client";
import type { Wiring } from "./base-deps";

/** StartExecution(ExecutionRun): the Lambda that starts the first run (EXECUTION_RUN_ARN); the only step that calls Step Functions. */
export function withExecutionRun(w: Wiring): Wiring {
  return { ...w, deps: { ...w.deps, sfn: createSfnClient(w.env), executionRunArn: requireEnv("EXECUTION_RUN_ARN", w.env) } };
}
