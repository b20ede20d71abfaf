import { Duration } from "aws-cdk-lib";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as actions from "aws-cdk-lib/aws-cloudwatch-actions";
import type * as sns from "aws-cdk-lib/aws-sns";
import * as events from "aws-cdk-lib/aws-events";
import * as targets from "aws-cdk-lib/aws-events-targets";
import type * as lambda from "aws-cdk-lib/aws-lambda";
import * as destinations from "aws-cdk-lib/aws-lambda-destinations";
import * as sqs from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { grantTokenKey } from "../key-access";
import { grantTableAccess, TABLE_ACCESS } from "../table-access";
import type { DataConstruct } from "./data";
import type { StateMachines } from "./state-machines";

export interface ReconcilerProps {
  fn: lambda.Function;
  machines: StateMachines;
  data: DataConstruct;
}

/** The statuses after which nothing of the machine runs any more, and its own failure path may not have run. */
export const RECONCILED_STATUSES = ["FAILED", "TIMED_OUT", "ABORTED"] as const;

/**
 * The second line of every failure (docs/architecture.md, shape on AWS): an EventBridge rule on both state machines' "Step Functions
 * Execution Status Change" (FAILED, TIMED_OUT, ABORTED) invokes the reconciler Lambda
 * (lambdas/reconcile-execution). It is idempotent, so every delivery layer may retry: EventBridge retries the
 * invoke for a day, Lambda retries a failed asynchronous run twice; what still fails lands in a queue whose
 * alarm tells the operator (`alarmOn`), besides the reconciler's own Errors alarm.
 * Least privilege: the table items it reads and writes (no Scan, no Delete), the key of the table, and the
 * Managed Agents key for the interrupt.
 */
export class Reconciler extends Construct {
  readonly rule: events.Rule;
  readonly deadLetters: sqs.Queue;

  constructor(scope: Construct, id: string, props: ReconcilerProps) {
    super(scope, id);
    const { fn, machines, data } = props;
    this.deadLetters = new sqs.Queue(this, "DeadLetters", {
      retentionPeriod: Duration.days(14),
      enforceSSL: true,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
    });
    this.rule = new events.Rule(this, "ExecutionEnded", {
      description: "TaskPipeline / ExecutionRun ended FAILED, TIMED_OUT or ABORTED: reconcile DB, audit, card and MCP scope",
      eventPattern: {
        source: ["aws.states"],
        detailType: ["Step Functions Execution Status Change"],
        detail: {
          status: [...RECONCILED_STATUSES],
          stateMachineArn: [machines.taskPipeline.stateMachineArn, machines.executionRun.stateMachineArn],
        },
      },
    });
    this.rule.addTarget(new targets.LambdaFunction(fn, { retryAttempts: 185, maxEventAge: Duration.hours(24), deadLetterQueue: this.deadLetters }));
    fn.configureAsyncInvoke({ retryAttempts: 2, maxEventAge: Duration.hours(6), onFailure: new destinations.SqsDestination(this.deadLetters) });

    // Its table actions per key prefix: infra/table-access.ts ("reconcile-execution"); cards open sealed installations.
    grantTableAccess(data, fn, TABLE_ACCESS["reconcile-execution"]);
    // Cards only: installations' bot tokens, never freee tokens (it makes no freee call).
    grantTokenKey(data, fn, "installation", { decrypt: true });
    data.secrets.ANTHROPIC_API_KEY.grantRead(fn);
  }

  /** An event that could not be reconciled even after every retry is a task nobody told the truth about. */
  alarmOn(topic: sns.ITopic): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, "DeadLettersAlarm", {
      metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: "Maximum" }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: "Reconciler: a failed execution could not be reconciled (see its dead-letter queue).",
    });
    alarm.addAlarmAction(new actions.SnsAction(topic));
    return alarm;
  }
}
