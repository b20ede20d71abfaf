import { Stack, Validations } from "aws-cdk-lib";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import { AwsSolutionsChecks } from "cdk-nag";
import { expect, it } from "vitest";
import { synthStack } from "./synth";

// cdk-nag runs as a CDK validation plugin: validation must be on for this file (other files turn it off for speed).
process.env.CDK_VALIDATION = "true";

/** Annotations cdk-nag left on the constructs (what `cdk synth` prints), for a readable failure. */
function findings(stack: Stack): string[] {
  return stack.node
    .findAll()
    .flatMap((c) => c.node.metadata.filter((m) => String(m.type).startsWith("aws:cdk:") && /AwsSolutions-/.test(String(m.data))).map((m) => `${c.node.path}: ${String(m.data)}`));
}

it("AwsSolutions checks pass on the stack — every remaining finding is acknowledged with a reason (infra/nag.ts)", () => {
  const { app, stack } = synthStack();
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  let error: unknown;
  try {
    app.synth();
  } catch (err) {
    error = err;
  }
  expect(findings(stack)).toEqual([]);
  expect(error).toBeUndefined();
}, 180_000);

it("the check is live: an unacknowledged finding (a table without PITR) fails the synth", () => {
  const { app, stack } = synthStack();
  new dynamodb.Table(stack, "Unprotected", { partitionKey: { name: "pk", type: dynamodb.AttributeType.STRING } });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  expect(() => app.synth()).toThrow(/DynamoDB table/);
}, 180_000);
