import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { loadStackSettings } from "../../infra/settings";
import { SlackMcpAgentStack } from "../../infra/stack";

/** The real stack, synthesized in-process with bundling skipped (seconds, not minutes). */
export function synthStack(context: Record<string, unknown> = {}) {
  const app = new App({ context: { "aws:cdk:bundling-stacks": [], ...context } });
  const stack = new SlackMcpAgentStack(app, "TestStack", { settings: loadStackSettings(app.node) });
  return { app, stack };
}

export function synthTemplate(context: Record<string, unknown> = {}) {
  process.env.CDK_VALIDATION ??= "false";
  const { stack } = synthStack(context);
  return { stack, template: Template.fromStack(stack) };
}
