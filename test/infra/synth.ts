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

/**
 * Test files share a worker's module cache, so one synthesis serves every file that asks for the same context
 * under the same environment (the settings read both). Assertions only read the template.
 */
const synthesized = new Map<string, { stack: SlackMcpAgentStack; template: Template }>();

export function synthTemplate(context: Record<string, unknown> = {}) {
  process.env.CDK_VALIDATION ??= "false";
  const key = JSON.stringify([context, Object.entries(process.env).sort(([a], [b]) => a.localeCompare(b))]);
  const known = synthesized.get(key);
  if (known !== undefined) return known;
  const { stack } = synthStack(context);
  const result = { stack, template: Template.fromStack(stack) };
  synthesized.set(key, result);
  return result;
}
