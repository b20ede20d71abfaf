import { App, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as sfn from "aws-cdk-lib/aws-stepfunctions";
import { describe, expect, it } from "vitest";
import { Observability } from "../../infra/constructs/observability";

function synth() {
  const app = new App();
  const stack = new Stack(app, "ObsTest");
  const table = new dynamodb.Table(stack, "Table", { partitionKey: { name: "pk", type: dynamodb.AttributeType.STRING } });
  const fn = new lambda.Function(stack, "Fn", { runtime: lambda.Runtime.NODEJS_22_X, handler: "index.handler", code: lambda.Code.fromInline("exports.handler=async()=>{}") });
  const machine = new sfn.StateMachine(stack, "Machine", { definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(stack, "P")) });
  new Observability(stack, "Obs", { stateMachines: { TaskPipeline: machine }, functions: { Ingress: fn }, table, alarmEmail: "ops@example.com" });
  return Template.fromStack(stack);
}

describe("alarms and dashboard", () => {
  const template = synth();

  it("an SNS topic, encrypted, receives every alarm", () => {
    template.resourceCountIs("AWS::SNS::Topic", 1);
    template.hasResourceProperties("AWS::SNS::Topic", { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties("AWS::KMS::Key", {
      KeyPolicy: { Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: "cloudwatch.amazonaws.com" } })]) },
    });
    const alarms = Object.values(template.findResources("AWS::CloudWatch::Alarm"));
    expect(alarms.length).toBeGreaterThan(0);
    for (const a of alarms) expect((a as { Properties: { AlarmActions: unknown[] } }).Properties.AlarmActions).toHaveLength(1);
  });

  it("failed and timed-out executions of a state machine alarm", () => {
    template.hasResourceProperties("AWS::CloudWatch::Alarm", { MetricName: "ExecutionsFailed", Namespace: "AWS/States", Threshold: 1 });
    template.hasResourceProperties("AWS::CloudWatch::Alarm", { MetricName: "ExecutionsTimedOut", Namespace: "AWS/States" });
  });

  it("Lambda errors and throttles alarm", () => {
    template.hasResourceProperties("AWS::CloudWatch::Alarm", { MetricName: "Errors", Namespace: "AWS/Lambda" });
    template.hasResourceProperties("AWS::CloudWatch::Alarm", { MetricName: "Throttles", Namespace: "AWS/Lambda" });
  });

  it("a rise of each silent failure class alarms, with the dimensions Powertools publishes", () => {
    for (const errorClass of ["EmptyResponseError", "TruncatedResponseError", "RefusedResponseError"]) {
      template.hasResourceProperties("AWS::CloudWatch::Alarm", {
        MetricName: "SilentFailures",
        Namespace: "SlackMcpAgent",
        Dimensions: Match.arrayWith([{ Name: "ErrorClass", Value: errorClass }, { Name: "service", Value: "slack-mcp-agent" }]),
      });
    }
  });

  it("DynamoDB throttling alarms", () => {
    template.hasResourceProperties("AWS::CloudWatch::Alarm", { MetricName: "ReadThrottleEvents", Namespace: "AWS/DynamoDB" });
    template.hasResourceProperties("AWS::CloudWatch::Alarm", { MetricName: "WriteThrottleEvents", Namespace: "AWS/DynamoDB" });
  });

  it("a dashboard exists and an operator e-mail is subscribed", () => {
    template.resourceCountIs("AWS::CloudWatch::Dashboard", 1);
    template.hasResourceProperties("AWS::SNS::Subscription", { Protocol: "email", Endpoint: "ops@example.com" });
  });
});
