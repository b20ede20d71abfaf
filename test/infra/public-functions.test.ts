import { describe, expect, it } from "vitest";
import { synthesizeMachines, type AslDefinition } from "../../dev/local/synth-definitions";
import { synthTemplate } from "./synth";

/**
 * Issue 15 item 5: the public Function URLs (now three: ingress, web, freee-mcp) had no reserved concurrency (a flood could starve the failure
 * handlers) and Step Functions logged ALL with execution data (request text, rejection reasons, task tokens).
 */

const { stack, template } = synthTemplate();
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
const fnProps = (t: typeof template, s: typeof stack, name: keyof typeof stack.functions) =>
  (t.toJSON().Resources as typeof resources)[s.getLogicalId(s.functions[name].fn.node.defaultChild as never)]!.Properties;

describe("reserved concurrency on the public functions", () => {
  it("ingress, web and freee-mcp reserve their defaults (25, 5, 10); step Lambdas share the rest", () => {
    expect(fnProps(template, stack, "ingress").ReservedConcurrentExecutions).toBe(25);
    expect(fnProps(template, stack, "web").ReservedConcurrentExecutions).toBe(5);
    expect(fnProps(template, stack, "freee-mcp").ReservedConcurrentExecutions).toBe(10);
    for (const name of ["create-task", "record-pipeline-failure", "record-run-failure", "poll-session"] as const) {
      expect(fnProps(template, stack, name).ReservedConcurrentExecutions, name).toBeUndefined();
    }
  });

  it("the settings change them; 0 leaves a function unreserved; anything else is refused", () => {
    const custom = synthTemplate({ ingressReservedConcurrency: "40", freeeMcpReservedConcurrency: 0 });
    expect(fnProps(custom.template, custom.stack, "ingress").ReservedConcurrentExecutions).toBe(40);
    expect(fnProps(custom.template, custom.stack, "freee-mcp").ReservedConcurrentExecutions).toBeUndefined();
    expect(() => synthTemplate({ ingressReservedConcurrency: -1 })).toThrow(/ingressReservedConcurrency/);
    expect(() => synthTemplate({ webReservedConcurrency: 1.5 })).toThrow(/webReservedConcurrency/);
    expect(() => synthTemplate({ freeeMcpReservedConcurrency: "many" })).toThrow(/freeeMcpReservedConcurrency/);
  });
});

describe("Step Functions logs and state data", () => {
  it("both machines log every transition without execution data", () => {
    const machines = Object.values(resources).filter((r) => r.Type === "AWS::StepFunctions::StateMachine");
    expect(machines).toHaveLength(2);
    for (const m of machines) {
      expect(m.Properties.LoggingConfiguration.Level).toBe("ALL");
      expect(m.Properties.LoggingConfiguration.IncludeExecutionData).toBe(false);
    }
  });

  it("the task token goes only into the approval Lambdas' payload: no state copies it into the state data", () => {
    const { taskPipeline, executionRun } = synthesizeMachines();
    const uses: string[] = [];
    const walk = (value: unknown, path: string) => {
      if (typeof value === "string" && value.includes("$$.Task.Token")) uses.push(path);
      else if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`);
    };
    for (const [machine, definition] of [["TaskPipeline", taskPipeline], ["ExecutionRun", executionRun]] as [string, AslDefinition][]) {
      for (const [name, state] of Object.entries(definition.States)) walk(state, `${machine}.${name}`);
    }
    expect(uses.sort()).toEqual(["TaskPipeline.AwaitProcessApproval.Parameters.Payload.taskToken.$", "TaskPipeline.AwaitPromptApproval.Parameters.Payload.taskToken.$"]);
    for (const name of ["AwaitPromptApproval", "AwaitProcessApproval"]) {
      const state = taskPipeline.States[name]!;
      expect(String(state.Resource)).toMatch(/waitForTaskToken$/);
      // The state's result is what SendTaskSuccess sent (the decision): it lands on $.approval, nothing else.
      expect(state.ResultPath).toBe("$.approval");
    }
  });
});
