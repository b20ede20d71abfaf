import { describe, expect, it } from "vitest";
import { synthTemplate } from "./synth";

/**
 * Issue 14: the second line of every failure — an EventBridge rule on both state machines' status changes
 * (FAILED, TIMED_OUT, ABORTED) → the reconciler Lambda, with retries, a dead-letter queue and an alarm on it,
 * and least privilege (the table items it touches, no Scan / Delete / batch writes, no Step Functions).
 */
const { stack, template } = synthTemplate();
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const logicalId = (c: { node: { defaultChild?: unknown } }) => stack.getLogicalId(c.node.defaultChild as never);
const reconcilerFn = logicalId(stack.functions["reconcile-execution"].fn);
const machines = [logicalId(stack.machines.taskPipeline), logicalId(stack.machines.executionRun)];

describe("the reconciler's rule", () => {
  const rules = ofType("AWS::Events::Rule").filter(([, r]) => r.Properties.EventPattern?.["detail-type"]?.includes("Step Functions Execution Status Change"));

  it("matches FAILED, TIMED_OUT and ABORTED of both state machines", () => {
    expect(rules).toHaveLength(1);
    const pattern = rules[0]![1].Properties.EventPattern;
    expect(pattern.source).toEqual(["aws.states"]);
    expect([...pattern.detail.status].sort()).toEqual(["ABORTED", "FAILED", "TIMED_OUT"]);
    expect(pattern.detail.stateMachineArn.map((a: { Ref: string }) => a.Ref).sort()).toEqual([...machines].sort());
  });

  it("targets the reconciler with retries and a dead-letter queue that raises an alarm", () => {
    const [target] = rules[0]![1].Properties.Targets;
    expect(target.Arn).toEqual({ "Fn::GetAtt": [reconcilerFn, "Arn"] });
    expect(target.RetryPolicy.MaximumRetryAttempts).toBeGreaterThan(0);
    const dlq = target.DeadLetterConfig.Arn["Fn::GetAtt"][0] as string;
    expect(resources[dlq]?.Type).toBe("AWS::SQS::Queue");
    const alarms = ofType("AWS::CloudWatch::Alarm").filter(([, a]) => JSON.stringify(a.Properties.Dimensions ?? []).includes(dlq));
    expect(alarms).toHaveLength(1);
    const invokeConfig = ofType("AWS::Lambda::EventInvokeConfig").find(([, c]) => c.Properties.FunctionName.Ref === reconcilerFn);
    expect(invokeConfig?.[1].Properties.MaximumRetryAttempts).toBe(2);
  });

  it("has least privilege: the table's item reads and writes it uses, nothing of Step Functions", () => {
    const role = resources[reconcilerFn]!.Properties.Role["Fn::GetAtt"][0] as string;
    const actions = ofType("AWS::IAM::Policy")
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === role))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement)
      .flatMap((s: { Action: string | string[] }) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect([...new Set(actions.filter((a: string) => a.startsWith("dynamodb:")))].sort()).toEqual(["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"]);
    expect(actions.filter((a: string) => a.startsWith("states:"))).toEqual([]);
  });
});
