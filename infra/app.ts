import { App } from "aws-cdk-lib";
import { loadStackSettings } from "./settings";
import { SlackMcpAgentStack } from "./stack";

const app = new App();
const stackName = (app.node.tryGetContext("stackName") as string | undefined) ?? "SlackMcpAgent";
new SlackMcpAgentStack(app, stackName, {
  settings: loadStackSettings(app.node),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: "slack-mcp-agent: Slack → reviewed plan → freee via Claude Managed Agents",
});
app.synth();
