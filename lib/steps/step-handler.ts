import type { Context } from "aws-lambda";
import type { ZodMiniType } from "zod/mini";
import { taskIdFor, type SlackThread } from "../core/domain/records";
import { BadRequestError, ErrorNames } from "../core/errors/taxonomy";
import type { Env } from "../core/config/env";
import { appendInvocationKeys, beginInvocation } from "../core/observability/logger";
import { redactThrown } from "../core/redaction/redact";
import type { PipelineDeps } from "./ports";

/** Which optional ports a step uses (what its Lambda's `wire` builds; test/pipeline/wiring.test.ts checks). */
export interface DepsNeeds {
  /** L1–L3 (Anthropic Messages): TaskPipeline generation Lambdas. */
  layers?: boolean;
  /** L4 (Managed Agents): ExecutionRun Lambdas. */
  agent?: boolean;
  /** StartExecution(ExecutionRun): the Lambda that starts the first run. */
  executionRun?: boolean;
  /** freee reads with the workspace's connection (the preview). */
  freee?: boolean;
}

export interface StepDefinition<I, O> {
  /** The Lambda's name (its folder under lambdas/ and its logger's service name). */
  service: string;
  needs: DepsNeeds;
  /**
   * Builds the step's dependencies from the environment, once per cold start: its Lambda's own wiring
   * (lambdas/<folder>/handler.ts), so the bundle holds only the clients the step uses.
   */
  wire: (env: Env) => Promise<PipelineDeps> | PipelineDeps;
  schema: ZodMiniType<I>;
  run: (deps: PipelineDeps, input: I) => Promise<O>;
}

const RETRIED: ReadonlySet<string> = new Set([...ErrorNames.transient, ...ErrorNames.timeout, ...ErrorNames.silentRetryOnce, ...ErrorNames.malformed]);

export type StepHandler<O> = (event: unknown, context?: Context) => Promise<O>;

export interface DefinedStep<O> {
  /** The Lambda entry point: production deps from the environment, built once per cold start. */
  handler: StepHandler<O>;
  /** The same handler over given deps (tests, the local runner). */
  withDeps(deps: PipelineDeps | (() => Promise<PipelineDeps>)): StepHandler<O>;
  /** The production wiring over another environment (the local stack, tests). */
  wire(env: Env): Promise<PipelineDeps>;
  service: string;
  needs: DepsNeeds;
}

/**
 * A thin Lambda handler: parse the state's input with zod, build deps once, call the step. An input that does
 * not match is a wiring bug between the state machine and the step: BadRequestError, which is never retried.
 * Every log line of the invocation carries the Lambda context and the task (and execution) it is about.
 */
export function defineStep<I, O>(definition: StepDefinition<I, O>, env: Env = process.env): DefinedStep<O> {
  const make = (getDeps: () => Promise<PipelineDeps>): StepHandler<O> => {
    return async (event: unknown, context?: Context) => {
      beginInvocation(context);
      const parsed = definition.schema.safeParse(event);
      if (!parsed.success) {
        throw new BadRequestError(`${definition.service}: input does not match its schema`, {
          cause: parsed.error,
          details: { issues: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`) },
        });
      }
      appendInvocationKeys(subjectOf(parsed.data));
      const deps = await getDeps();
      try {
        return await definition.run(deps, parsed.data);
      } catch (err) {
        // An attempt that ended in an error the state machine retries (docs/architecture.md, error table). The last attempt of an
        // exhausted series is also counted in Failures by the failure path.
        if (err instanceof Error && RETRIED.has(err.name)) deps.metrics.retry(definition.service, err.name);
        // What is thrown here becomes the Catch's `Cause` in the execution history: no secret in it.
        throw redactThrown(err);
      }
    };
  };
  let cached: Promise<PipelineDeps> | undefined;
  const production = () => {
    // A failed build (e.g. a secret not yet filled) is not cached: the next invocation tries again.
    cached ??= Promise.resolve()
      .then(() => definition.wire(env))
      .catch((err: unknown) => {
        cached = undefined;
        throw err;
      });
    return cached;
  };
  return {
    service: definition.service,
    needs: definition.needs,
    handler: make(production),
    wire: async (other) => definition.wire(other),
    withDeps: (deps) => make(typeof deps === "function" ? deps : async () => deps),
  };
}

/** The task (and execution) a step's input is about: its `taskId`, or the one its Slack thread derives (L1). */
function subjectOf(input: unknown): { taskId?: string; executionNo?: number } {
  if (typeof input !== "object" || input === null) return {};
  const { taskId, executionNo, thread } = input as { taskId?: unknown; executionNo?: unknown; thread?: SlackThread };
  const id = typeof taskId === "string" ? taskId : thread === undefined ? undefined : taskIdFor(thread);
  return { ...(id === undefined ? {} : { taskId: id }), ...(typeof executionNo === "number" ? { executionNo } : {}) };
}
