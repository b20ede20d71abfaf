import { Duration } from "aws-cdk-lib";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as actions from "aws-cdk-lib/aws-cloudwatch-actions";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as iam from "aws-cdk-lib/aws-iam";
import * as kms from "aws-cdk-lib/aws-kms";
import type * as lambda from "aws-cdk-lib/aws-lambda";
import * as sns from "aws-cdk-lib/aws-sns";
import * as subscriptions from "aws-cdk-lib/aws-sns-subscriptions";
import type * as sfn from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { METRICS_NAMESPACE, METRICS_SERVICE, MetricNames } from "../../lib/core/observability/metrics";

export interface ObservabilityProps {
  stateMachines: Record<string, sfn.IStateMachine>;
  functions: Record<string, lambda.IFunction>;
  table: dynamodb.ITable;
  /** Optional e-mail subscribed to the alarm topic. */
  alarmEmail?: string;
  /** SilentFailures of one class within 15 minutes that count as "a rise" (default 3). */
  silentFailureThreshold?: number;
}

const SILENT_CLASSES = ["EmptyResponseError", "TruncatedResponseError", "RefusedResponseError"] as const;

/**
 * Alarms and a dashboard for what an operator must hear about: failed executions of either state machine,
 * Lambda errors and throttles, a rise in silent failures (per class), DynamoDB throttling. Every alarm goes to
 * one SNS topic.
 */
export class Observability extends Construct {
  readonly alarmTopic: sns.Topic;
  readonly dashboard: cloudwatch.Dashboard;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    // The topic's own key: CloudWatch alarms must be allowed to use it to publish to an encrypted topic.
    const key = new kms.Key(this, "AlarmTopicKey", { enableKeyRotation: true, description: "slack-mcp-agent alarm topic" });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal("cloudwatch.amazonaws.com")],
        actions: ["kms:Decrypt", "kms:GenerateDataKey*"],
        resources: ["*"],
      }),
    );
    this.alarmTopic = new sns.Topic(this, "AlarmTopic", { displayName: "slack-mcp-agent alarms", masterKey: key, enforceSSL: true });
    if (props.alarmEmail !== undefined) this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    const notify = new actions.SnsAction(this.alarmTopic);
    const alarm = (name: string, metric: cloudwatch.IMetric, threshold: number, description: string) => {
      const a = new cloudwatch.Alarm(this, name, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      a.addAlarmAction(notify);
      this.alarms.push(a);
      return a;
    };

    for (const [name, machine] of Object.entries(props.stateMachines)) {
      alarm(`${name}ExecutionsFailed`, machine.metricFailed({ period: Duration.minutes(5), statistic: "Sum" }), 1, `${name}: an execution failed (a task ended without its failure path).`);
      alarm(`${name}ExecutionsTimedOut`, machine.metricTimedOut({ period: Duration.minutes(5), statistic: "Sum" }), 1, `${name}: an execution timed out.`);
    }
    for (const [name, fn] of Object.entries(props.functions)) {
      alarm(`${name}Errors`, fn.metricErrors({ period: Duration.minutes(5), statistic: "Sum" }), 1, `Lambda ${name} threw.`);
      alarm(`${name}Throttles`, fn.metricThrottles({ period: Duration.minutes(5), statistic: "Sum" }), 1, `Lambda ${name} was throttled.`);
    }
    const silentMetric = (errorClass: string) =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: MetricNames.silentFailures,
        dimensionsMap: { service: METRICS_SERVICE, ErrorClass: errorClass },
        period: Duration.minutes(15),
        statistic: "Sum",
      });
    for (const errorClass of SILENT_CLASSES) {
      alarm(`Silent${errorClass}`, silentMetric(errorClass), props.silentFailureThreshold ?? 3, `A rise in ${errorClass}: LLM replies that were 200 OK but broke their contract.`);
    }
    alarm(
      "FreeeTokensLost",
      new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: MetricNames.freeeTokensLost, dimensionsMap: { service: METRICS_SERVICE }, period: Duration.minutes(5), statistic: "Sum" }),
      1,
      "Refreshed freee tokens were neither stored nor parked: that workspace must reconnect freee.",
    );
    const tableMetric = (metricName: string) =>
      props.table.metric(metricName, { period: Duration.minutes(5), statistic: "Sum" });
    alarm("TableReadThrottles", tableMetric("ReadThrottleEvents"), 1, "DynamoDB read throttling.");
    alarm("TableWriteThrottles", tableMetric("WriteThrottleEvents"), 1, "DynamoDB write throttling.");

    const count = (metricName: string, dimensionsMap: Record<string, string> = {}) =>
      new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service: METRICS_SERVICE, ...dimensionsMap }, period: Duration.hours(1), statistic: "Sum" });
    this.dashboard = new cloudwatch.Dashboard(this, "Dashboard", { dashboardName: undefined });
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: "Tasks by outcome",
        left: ["completed", "failed", "cancelled", "closed", "answered"].map((o) => count(MetricNames.tasksEnded, { Outcome: o }).with({ label: o })),
      }),
      new cloudwatch.GraphWidget({ title: "Silent failures by class", left: SILENT_CLASSES.map((c) => silentMetric(c).with({ label: c })) }),
      new cloudwatch.GraphWidget({
        title: "Regenerations, reruns, cancels",
        left: [count(MetricNames.regenerations, { Kind: "prompt" }), count(MetricNames.regenerations, { Kind: "process" }), count(MetricNames.reruns), count(MetricNames.cancels)],
      }),
      new cloudwatch.GraphWidget({
        title: "Failures by layer (search)",
        left: [
          new cloudwatch.MathExpression({
            expression: `SEARCH('{${METRICS_NAMESPACE},service,Layer,ErrorClass} MetricName="${MetricNames.failures}"', 'Sum', 3600)`,
            label: "",
            period: Duration.hours(1),
          }),
        ],
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: "State machine executions failed",
        left: Object.entries(props.stateMachines).map(([n, m]) => m.metricFailed({ period: Duration.minutes(5) }).with({ label: n })),
      }),
      new cloudwatch.GraphWidget({
        title: "Lambda errors",
        left: Object.entries(props.functions).map(([n, f]) => f.metricErrors({ period: Duration.minutes(5) }).with({ label: n })),
      }),
      new cloudwatch.GraphWidget({
        title: "L4 duration (s)",
        left: [new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: MetricNames.executionDuration, dimensionsMap: { service: METRICS_SERVICE }, statistic: "p90", period: Duration.hours(1) })],
      }),
    );
  }
}
