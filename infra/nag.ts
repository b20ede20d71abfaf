import { Stack, Validations } from "aws-cdk-lib";
import type { CfnResource } from "aws-cdk-lib";
import type { IConstruct } from "constructs";
import type { AppFunction } from "./constructs/app-function";
import type { DataConstruct } from "./constructs/data";
import type { Reconciler } from "./constructs/reconciler";
import type { StateMachines } from "./constructs/state-machines";

/**
 * The cdk-nag AwsSolutions findings this stack keeps, each acknowledged on the narrowest construct with the
 * reason it stays (test/infra/nag.test.ts fails on any finding not listed here).
 */
export function acknowledgeFindings(stack: Stack, parts: { functions: AppFunction[]; data: DataConstruct; machines: StateMachines; reconciler: Reconciler }): void {
  const ack = (scope: IConstruct, id: string, reason: string) => Validations.of(scope).acknowledge({ id, reason });
  const arnOf = (resource: IConstruct) => `<${stack.getLogicalId(resource.node.defaultChild as CfnResource)}.Arn>`;

  for (const fn of parts.functions) {
    ack(fn, "AwsSolutions-L1", "The runtime is fixed at Node 22 (docs/architecture.md, shape on AWS) (bundles target node22, CI runs Node 20); a runtime move is a deliberate change, not a lint fix.");
    ack(fn, "AwsSolutions-IAM5[Resource::*]", "X-Ray PutTraceSegments / PutTelemetryRecords (active tracing) support no resource-level permissions.");
    ack(fn, "AwsSolutions-IAM5[Action::kms:GenerateDataKey*]", "CDK's grant on this stack's own customer managed keys (table, tokens): the wildcard covers the GenerateDataKey variants on those keys only.");
    ack(fn, "AwsSolutions-IAM5[Action::kms:ReEncrypt*]", "CDK's grant on this stack's own customer managed keys: ReEncryptFrom/To on those keys only.");
  }
  for (const machine of [parts.machines.taskPipeline, parts.machines.executionRun]) {
    ack(machine, "AwsSolutions-IAM5[Resource::*]", "Step Functions log delivery (logs:*LogDelivery*) and X-Ray actions support no resource-level permissions.");
  }
  for (const fn of parts.functions) {
    for (const machine of [parts.machines.taskPipeline, parts.machines.executionRun]) {
      ack(machine, `AwsSolutions-IAM5[Resource::${arnOf(fn.fn)}:*]`, "LambdaInvoke's grant on the versions / aliases of a function this machine invokes.");
    }
  }
  ack(parts.reconciler.deadLetters, "AwsSolutions-SQS3", "It is the dead-letter queue (of the reconciler's EventBridge target and its asynchronous invocations), watched by an alarm; a queue behind it would only move the same messages.");
  ack(parts.data, "AwsSolutions-SMG4", "Slack / Anthropic / freee credentials are issued and rotated in those services by the operator (docs/infra.md); the HMAC secrets rotate by putting a new value.");
}
