import { defineStep } from "../../lib/steps/step-handler";
import { baseWiring } from "../../wiring/base-deps";
import { withAgent } from "../../wiring/agent";
import { ExecutionStatusChangeSchema, reconcileExecutionStep } from "../../lib/steps/reconcile-step";

/** EventBridge target: a TaskPipeline / ExecutionRun that ended FAILED, TIMED_OUT or ABORTED (docs/architecture.md, shape on AWS). */
export const step = defineStep({ service: "reconcile-execution", needs: { agent: true }, wire: async (env) => (await withAgent(baseWiring("reconcile-execution", env))).deps, schema: ExecutionStatusChangeSchema, run: reconcileExecutionStep });
export const handler = step.handler;
