import { App, Stack } from "aws-cdk-lib";
import type { CfnFunction } from "aws-cdk-lib/aws-lambda";
import { loadStackSettings, type StackSettings } from "../../infra/settings";
import { SlackMcpAgentStack } from "../../infra/stack";
import { PIPELINE_FUNCTIONS, RUN_FUNCTIONS, type StepFunctionName } from "../../infra/state-machines/functions";

export const LOCAL_REGION = "us-east-1";
export const LOCAL_ACCOUNT = "000000000000";

export interface SynthesizedMachines {
  /** ASL of TaskPipeline / ExecutionRun exactly as CloudFormation would get it, tokens resolved to local ARNs. */
  taskPipeline: AslDefinition;
  executionRun: AslDefinition;
  taskPipelineArn: string;
  executionRunArn: string;
  /** Lambda function ARN (as it appears in the definitions) → the step Lambda folder. */
  functionByArn: ReadonlyMap<string, StepFunctionName>;
  settings: StackSettings;
}

export type AslDefinition = { StartAt: string; States: Record<string, Record<string, unknown>> } & Record<string, unknown>;

/**
 * Synthesize the real stack in-process (bundling skipped, so it takes seconds) and return the two state machine
 * definitions CDK produced. `context` overrides stack settings (e.g. `{ maxRegenerations: 2 }`).
 */
export function synthesizeMachines(context: Record<string, unknown> = {}): SynthesizedMachines {
  // CDK's template validation costs ~10 s per synth and checks nothing the local run needs.
  process.env.CDK_VALIDATION ??= "false";
  const app = new App({ context: { "aws:cdk:bundling-stacks": [], ...context } });
  const settings = loadStackSettings(app.node);
  const stack = new SlackMcpAgentStack(app, "LocalStack", { settings, env: { account: LOCAL_ACCOUNT, region: LOCAL_REGION } });
  const template = app.synth().getStackArtifact(stack.artifactId).template as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };

  const arnOf = new Map<string, string>();
  const functionByArn = new Map<string, StepFunctionName>();
  for (const name of [...PIPELINE_FUNCTIONS, ...RUN_FUNCTIONS]) {
    const logicalId = Stack.of(stack).getLogicalId(stack.functions[name].fn.node.defaultChild as CfnFunction);
    const arn = `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${logicalId}`;
    arnOf.set(logicalId, arn);
    functionByArn.set(arn, name);
  }
  const machineLogicalId = (machine: "taskPipeline" | "executionRun") =>
    Stack.of(stack).getLogicalId(stack.machines[machine].node.defaultChild as unknown as import("aws-cdk-lib").CfnElement);
  const machineArn = (logicalId: string) => `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:${logicalId}`;
  const resolve = (value: unknown): string => {
    if (typeof value === "string") return value;
    const v = value as Record<string, unknown>;
    if (Array.isArray(v["Fn::Join"])) {
      const [sep, parts] = v["Fn::Join"] as [string, unknown[]];
      return parts.map(resolve).join(sep);
    }
    if (Array.isArray(v["Fn::GetAtt"])) {
      const [logicalId, attr] = v["Fn::GetAtt"] as [string, string];
      const arn = arnOf.get(logicalId);
      if (arn !== undefined && attr === "Arn") return arn;
      throw new Error(`local-sfn: cannot resolve Fn::GetAtt ${logicalId}.${attr}`);
    }
    if (typeof v.Ref === "string") {
      const pseudo: Record<string, string> = { "AWS::Partition": "aws", "AWS::Region": LOCAL_REGION, "AWS::AccountId": LOCAL_ACCOUNT, "AWS::URLSuffix": "amazonaws.com" };
      const out = pseudo[v.Ref];
      if (out !== undefined) return out;
      throw new Error(`local-sfn: cannot resolve Ref ${v.Ref}`);
    }
    throw new Error(`local-sfn: cannot resolve ${JSON.stringify(value).slice(0, 200)}`);
  };
  const definitionOf = (logicalId: string): AslDefinition => {
    const resource = template.Resources[logicalId];
    if (resource === undefined || resource.Type !== "AWS::StepFunctions::StateMachine") throw new Error(`local-sfn: no state machine ${logicalId}`);
    return JSON.parse(resolve(resource.Properties.DefinitionString)) as AslDefinition;
  };
  const pipelineId = machineLogicalId("taskPipeline");
  const runId = machineLogicalId("executionRun");
  return {
    taskPipeline: definitionOf(pipelineId),
    executionRun: definitionOf(runId),
    taskPipelineArn: machineArn(pipelineId),
    executionRunArn: machineArn(runId),
    functionByArn,
    settings,
  };
}
