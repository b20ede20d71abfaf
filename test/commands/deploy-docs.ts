import { Stack } from "aws-cdk-lib";
import type { CfnFunction } from "aws-cdk-lib/aws-lambda";
import { createSlackLambdaFromEnv } from "../../wiring/slack-lambda";
import { createWebFromEnv } from "../../wiring/web-env";
import { NOT_FOUND } from "../../lib/ingress/ingress";
import type { IngressHandler } from "../../lib/ingress/ingress";
import { synthTemplate } from "../infra/synth";

/** What the deploy docs are checked against: the synthesized stack's outputs and Function URLs, and each public
 * Lambda's router as its handler builds it. */
export interface DeployedShape {
  /** Output name → its value as a Function URL output: the Lambda folder it is on and the path after it. */
  urlOutputs: Map<string, { lambda: string; path: string }>;
  outputs: string[];
  functionUrls: number;
  routers: Record<string, IngressHandler>;
}

type Template = { Outputs: Record<string, { Value: unknown }>; Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };

export async function deployedShape(): Promise<DeployedShape> {
  const { stack, template } = synthTemplate();
  const t = template.toJSON() as Template;
  const folderOf = new Map<string, string>();
  for (const [folder, f] of Object.entries(stack.functions)) folderOf.set(Stack.of(stack).getLogicalId(f.fn.node.defaultChild as CfnFunction), folder);
  const urlLambda = new Map<string, string>();
  for (const [id, r] of Object.entries(t.Resources)) {
    if (r.Type !== "AWS::Lambda::Url") continue;
    const target = (r.Properties.TargetFunctionArn as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
    urlLambda.set(id, folderOf.get(target)!);
  }
  const urlOutputs = new Map<string, { lambda: string; path: string }>();
  for (const [name, { Value }] of Object.entries(t.Outputs)) {
    const parts = (Value as { "Fn::Join"?: [string, unknown[]] })["Fn::Join"]?.[1] ?? [Value];
    const att = (parts[0] as { "Fn::GetAtt"?: [string, string] })["Fn::GetAtt"];
    if (att?.[1] !== "FunctionUrl") continue;
    urlOutputs.set(name, { lambda: urlLambda.get(att[0])!, path: `/${parts.slice(1).join("")}` });
  }
  // Settings as on AWS, values local: building the routers reads no table and calls no service.
  const env = {
    TABLE_NAME: "docs-table",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "docs",
    AWS_SECRET_ACCESS_KEY: "docs",
    DYNAMODB_ENDPOINT: "http://127.0.0.1:9",
    SLACK_SIGNING_SECRET: "docs-signing-secret",
    SLACK_CLIENT_ID: "111.222",
    SLACK_CLIENT_SECRET: "docs-client-secret",
    SLACK_STATE_SECRET: "docs-state-secret-0123456789",
    TASK_PIPELINE_ARN: "arn:aws:states:us-east-1:000000000000:stateMachine:TaskPipeline",
    EXECUTION_RUN_ARN: "arn:aws:states:us-east-1:000000000000:stateMachine:ExecutionRun",
    FREEE_TOKEN_LOCAL_KEY: Buffer.alloc(32, 7).toString("base64"),
    FREEE_CLIENT_ID: "docs-freee-id",
    FREEE_CLIENT_SECRET: "docs-freee-secret",
    FREEE_STATE_SECRET: "docs-freee-state-secret-0123",
    FREEE_CONNECT_BASE_URL: "https://web.example.test",
    PUBLIC_BASE_URL: "https://web.example.test",
  };
  const routers = { ingress: await createSlackLambdaFromEnv(env), web: await createWebFromEnv(env) };
  return { urlOutputs, outputs: Object.keys(t.Outputs).sort(), functionUrls: urlLambda.size, routers };
}

/** True when the router has the route: anything but its own 404 (a handler may still refuse the bare request). */
export async function serves(router: IngressHandler, route: string): Promise<boolean> {
  const [method, path] = route.split(" ") as [string, string];
  const r = await router({ method, path, query: "", headers: {}, body: "" });
  return !(r.statusCode === 404 && r.body === NOT_FOUND);
}
