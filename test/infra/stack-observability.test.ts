import { describe, expect, it } from "vitest";
import { synthTemplate } from "./synth";

// Issue 8: the metrics the Lambdas publish have alarms in the deployed stack, all notifying one SNS topic.
const { template } = synthTemplate();
const alarms = Object.values(template.findResources("AWS::CloudWatch::Alarm")) as Array<{ Properties: Record<string, any> }>;

describe("alarms and dashboard in the synthesized stack", () => {
  it("both state machines alarm on failed executions", () => {
    const failed = alarms.filter((a) => a.Properties.MetricName === "ExecutionsFailed" && a.Properties.Namespace === "AWS/States");
    expect(failed).toHaveLength(2);
  });

  it("every Lambda alarms on errors and throttles", () => {
    const lambdas = Object.keys(template.findResources("AWS::Lambda::Function")).length;
    expect(alarms.filter((a) => a.Properties.MetricName === "Errors" && a.Properties.Namespace === "AWS/Lambda")).toHaveLength(lambdas);
    expect(alarms.filter((a) => a.Properties.MetricName === "Throttles" && a.Properties.Namespace === "AWS/Lambda")).toHaveLength(lambdas);
  });

  it("each silent failure class alarms on a rise, and DynamoDB throttling alarms", () => {
    const silent = alarms.filter((a) => a.Properties.MetricName === "SilentFailures").map((a) => a.Properties.Dimensions.find((d: { Name: string }) => d.Name === "ErrorClass").Value);
    expect(silent.sort()).toEqual(["EmptyResponseError", "RefusedResponseError", "TruncatedResponseError"]);
    expect(alarms.some((a) => a.Properties.MetricName === "WriteThrottleEvents")).toBe(true);
  });

  it("every alarm notifies the one alarm topic, which is exported", () => {
    const topics = Object.keys(template.findResources("AWS::SNS::Topic"));
    expect(topics).toHaveLength(1);
    for (const a of alarms) expect(a.Properties.AlarmActions).toEqual([{ Ref: topics[0] }]);
    template.hasOutput("AlarmTopicArn", { Value: { Ref: topics[0] } });
    template.resourceCountIs("AWS::CloudWatch::Dashboard", 1);
  });

  it("the dashboard reads the metrics the Lambdas publish", () => {
    const dashboard = Object.values(template.findResources("AWS::CloudWatch::Dashboard"))[0] as { Properties: { DashboardBody: unknown } };
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const name of ["TasksEnded", "SilentFailures", "Regenerations", "Reruns", "Cancels", "ExecutionDurationSeconds"]) expect(body).toContain(name);
    expect(body).toEqual(expect.stringMatching(/SlackMcpAgent/));
  });
});
