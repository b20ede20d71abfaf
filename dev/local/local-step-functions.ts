import { randomUUID } from "node:crypto";
import { StateMachine } from "aws-local-stepfunctions";
import type { StepFunctionName } from "../../infra/state-machines/functions";
import type { AslDefinition, SynthesizedMachines } from "./synth-definitions";

export type EventLog = ReturnType<StateMachine["run"]>["eventLogs"] extends AsyncGenerator<infer E> ? E : never;

/** A Lambda handler as the runner calls it: the state's input in, the result out; throwing = the Lambda failed. */
export type LocalHandler = (event: unknown) => Promise<unknown>;

export interface LocalStepFunctionsOptions {
  machines: SynthesizedMachines;
  handlers: Record<StepFunctionName, LocalHandler>;
  /** Wait states last this long (ms) instead of their Seconds. Default 0. */
  waitMs?: number;
  /** Retry pauses last this long (ms) instead of IntervalSeconds × BackoffRate^n. Default 0. */
  retryMs?: number;
  /**
   * Called once when an execution ends, as EventBridge's "Step Functions Execution Status Change" would be sent
   * (the local stack routes FAILED / ABORTED to the reconciler, as the deployed rule does).
   */
  onEnded?: (execution: LocalExecution) => void;
}

export type ExecutionStatus = "RUNNING" | "SUCCEEDED" | "FAILED" | "ABORTED";

export interface LocalExecution {
  machine: "TaskPipeline" | "ExecutionRun";
  stateMachineArn: string;
  name: string;
  executionArn: string;
  input: unknown;
  /** Every event of the run so far, in order (aws-local-stepfunctions' event log). */
  events: EventLog[];
  status: ExecutionStatus;
  output?: unknown;
  error?: string;
  cause?: unknown;
  /** Settles when the execution ends (never rejects: read status / error). */
  done: Promise<LocalExecution>;
  abort(): void;
}

interface PendingToken {
  token: string;
  executionName: string;
  stateName: string;
  payload: unknown;
  resolve(output: unknown): void;
  reject(error: Error): void;
}

/** An error as Step Functions names it (`States.Timeout`, or what SendTaskFailure said). */
class StatesError extends Error {
  constructor(name: string, cause: string) {
    super(cause);
    this.name = name;
  }
}

const WAIT_FOR_TASK_TOKEN = /:states:::lambda:invoke\.waitForTaskToken$/;

/**
 * Runs the synthesized TaskPipeline / ExecutionRun definitions locally with aws-local-stepfunctions (docs/architecture.md, how it is tested):
 * every Task state is mapped to the real handler of the Lambda its Resource names; waits and retry pauses
 * shrink; the callback pattern is simulated — a waitForTaskToken state calls its Lambda with a fresh token and
 * then waits for `sendTaskSuccess` / `sendTaskFailure` / `timeOutTask` with that token. `startExecution` is
 * StartExecution (idempotent by name), so the pipeline's own start of ExecutionRun runs locally too.
 */
export class LocalStepFunctions {
  readonly executions = new Map<string, LocalExecution>();
  private readonly pending = new Map<string, PendingToken>();
  private readonly waiters = new Set<() => void>();
  private readonly machinesByName = new Map<string, StateMachine>();

  constructor(private readonly options: LocalStepFunctionsOptions) {}

  get taskPipelineArn(): string {
    return this.options.machines.taskPipelineArn;
  }
  get executionRunArn(): string {
    return this.options.machines.executionRunArn;
  }

  /** StartExecution: a taken name with the same input returns the running/finished execution (as AWS does). */
  startExecution(stateMachineArn: string, name: string, input: unknown): LocalExecution {
    const machine = stateMachineArn === this.taskPipelineArn ? "TaskPipeline" : stateMachineArn === this.executionRunArn ? "ExecutionRun" : undefined;
    if (machine === undefined) throw namedError("StateMachineDoesNotExist", `unknown state machine ${stateMachineArn}`);
    const key = `${machine}:${name}`;
    const existing = this.executions.get(key);
    if (existing !== undefined) {
      if (JSON.stringify(existing.input) === JSON.stringify(input)) return existing;
      throw namedError("ExecutionAlreadyExists", `execution ${name} already exists with another input`);
    }
    const definition = machine === "TaskPipeline" ? this.options.machines.taskPipeline : this.options.machines.executionRun;
    const executionArn = `${stateMachineArn.replace(":stateMachine:", ":execution:")}:${name}`;
    const run = this.compiled(machine, definition).run(input as never, {
      overrides: this.overridesFor(definition, name) as never,
      context: { Execution: { Id: executionArn, Name: name, Input: input, StartTime: new Date().toISOString() }, StateMachine: { Id: stateMachineArn }, Task: { Token: "local" } } as never,
    });
    const execution: LocalExecution = {
      machine,
      stateMachineArn,
      name,
      executionArn,
      input,
      events: [],
      status: "RUNNING",
      done: undefined as unknown as Promise<LocalExecution>,
      abort: () => run.abort(),
    };
    const collect = (async () => {
      for await (const event of run.eventLogs) {
        execution.events.push(event);
        this.notify();
      }
    })();
    execution.done = run.result
      .then((output: unknown) => {
        execution.output = output;
        return { status: "SUCCEEDED" as const };
      })
      .catch((err: unknown) => {
        const e = err as { name?: string; message?: string };
        return { status: e.name === "ExecutionAbortedError" ? ("ABORTED" as const) : ("FAILED" as const), name: e.name, message: e.message };
      })
      .then(async (outcome) => {
        // The event log may still be draining: read the failure from it once it is complete.
        await collect;
        if (outcome.status !== "SUCCEEDED") {
          const failed = execution.events.find((ev) => ev.type === "ExecutionFailed") as { Error?: string; Cause?: unknown } | undefined;
          execution.error = failed?.Error ?? outcome.name;
          execution.cause = failed?.Cause ?? outcome.message;
        }
        execution.status = outcome.status;
        this.notify();
        this.options.onEnded?.(execution);
        return execution;
      });
    this.executions.set(key, execution);
    this.notify();
    return execution;
  }

  execution(machine: "TaskPipeline" | "ExecutionRun", name: string): LocalExecution | undefined {
    return this.executions.get(`${machine}:${name}`);
  }

  /** Tokens of the waitForTaskToken states currently waiting. */
  pendingTokens(): PendingToken[] {
    return [...this.pending.values()];
  }

  sendTaskSuccess(token: string, output: unknown): void {
    this.take(token).resolve(output);
  }

  sendTaskFailure(token: string, error: string, cause = ""): void {
    this.take(token).reject(new StatesError(error, cause));
  }

  /** What AWS does when TimeoutSeconds of a waitForTaskToken state passes: the state fails with States.Timeout. */
  timeOutTask(token: string): void {
    this.take(token).reject(new StatesError("States.Timeout", "the callback did not arrive in time"));
  }

  /** Resolve when `predicate` holds (checked after every event), or reject after `timeoutMs`. */
  async waitFor<T>(predicate: () => T | undefined | false, timeoutMs = 10_000, what = "condition"): Promise<T> {
    const now = predicate();
    if (now) return now;
    return new Promise<T>((resolve, reject) => {
      const check = () => {
        const value = predicate();
        if (value) {
          cleanup();
          resolve(value);
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`local-sfn: timed out waiting for ${what}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    });
  }

  /** Wait until a waitForTaskToken state of this execution is waiting, and return its token. */
  async waitForToken(executionName: string, stateName?: string, timeoutMs?: number): Promise<PendingToken> {
    return this.waitFor(
      () => this.pendingTokens().find((p) => p.executionName === executionName && (stateName === undefined || p.stateName === stateName)),
      timeoutMs,
      `a task token of ${executionName}${stateName ? ` in ${stateName}` : ""}`,
    );
  }

  private take(token: string): PendingToken {
    const pending = this.pending.get(token);
    if (pending === undefined) throw namedError("TaskDoesNotExist", "task token is not waiting (already used, timed out, or unknown)");
    this.pending.delete(token);
    this.notify();
    return pending;
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Validating a definition takes ~0.5 s: once per machine; runs are independent of each other. */
  private compiled(machine: string, definition: AslDefinition): StateMachine {
    let compiled = this.machinesByName.get(machine);
    if (compiled === undefined) {
      compiled = new StateMachine(definition as never, { validationOptions: { checkArn: false, checkPaths: false } });
      this.machinesByName.set(machine, compiled);
    }
    return compiled;
  }

  private overridesFor(definition: AslDefinition, executionName: string) {
    const taskResourceLocalHandlers: Record<string, (input: never) => Promise<never>> = {};
    const waitTimeOverrides: Record<string, number> = {};
    const retryIntervalOverrides: Record<string, number> = {};
    for (const [stateName, state] of Object.entries(definition.States)) {
      if (state.Type === "Wait") waitTimeOverrides[stateName] = this.options.waitMs ?? 0;
      if (state.Type !== "Task") continue;
      if (Array.isArray(state.Retry)) retryIntervalOverrides[stateName] = this.options.retryMs ?? 0;
      const resource = String(state.Resource);
      if (WAIT_FOR_TASK_TOKEN.test(resource)) {
        const fnArn = String((state.Parameters as { FunctionName?: unknown } | undefined)?.FunctionName);
        const handler = this.handlerFor(fnArn, stateName);
        taskResourceLocalHandlers[stateName] = ((input: { Payload?: Record<string, unknown> }) =>
          this.callback(executionName, stateName, handler, input.Payload ?? {})) as never;
      } else {
        const handler = this.handlerFor(resource, stateName);
        taskResourceLocalHandlers[stateName] = ((input: unknown) => handler(input)) as never;
      }
    }
    return { taskResourceLocalHandlers, waitTimeOverrides, retryIntervalOverrides };
  }

  private async callback(executionName: string, stateName: string, handler: LocalHandler, payload: Record<string, unknown>): Promise<unknown> {
    // Each entry into the state gets its own token, as on AWS (a retried state gets a new one).
    const token = `local-token-${randomUUID()}`;
    await handler({ ...payload, taskToken: token });
    const promise = new Promise<unknown>((resolve, reject) => {
      this.pending.set(token, { token, executionName, stateName, payload, resolve, reject });
    });
    this.notify();
    return promise;
  }

  private handlerFor(functionArn: string, stateName: string): LocalHandler {
    const name = this.options.machines.functionByArn.get(functionArn);
    if (name === undefined) throw new Error(`local-sfn: state ${stateName} invokes ${functionArn}, which is no step Lambda`);
    const handler = this.options.handlers[name];
    if (handler === undefined) throw new Error(`local-sfn: no local handler for ${name}`);
    return handler;
  }
}

function namedError(name: string, message: string): Error {
  const err = new Error(message);
  err.name = name;
  return err;
}
