import { SendTaskSuccessCommand, SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { App, AwsLambdaReceiver } from "@slack/bolt";

/**
 * The bench BASELINE: the minimal Bolt app a tutorial would write for the same two jobs as our ingress, bundled
 * the straightforward way (whole `@slack/bolt`, one SFNClient). A message starts the TaskPipeline; the approve
 * button acks and sends the task token back. No extra work is added: it must be a fair, fast baseline.
 */
const receiver = new AwsLambdaReceiver({ signingSecret: process.env.SLACK_SIGNING_SECRET ?? "" });
const app = new App({
  token: process.env.SLACK_BOT_TOKEN,
  receiver,
  ...(process.env.SLACK_API_URL === undefined ? {} : { clientOptions: { slackApiUrl: process.env.SLACK_API_URL } }),
});
const sfn = new SFNClient(
  process.env.SFN_ENDPOINT === undefined
    ? {}
    : { endpoint: process.env.SFN_ENDPOINT, region: process.env.AWS_REGION ?? "local", credentials: { accessKeyId: "local", secretAccessKey: "local" } },
);

app.message(async ({ message }) => {
  if (message.subtype !== undefined || !("text" in message)) return;
  await sfn.send(
    new StartExecutionCommand({
      stateMachineArn: process.env.TASK_PIPELINE_ARN,
      name: `${message.channel}-${message.ts.replace(".", "-")}`,
      input: JSON.stringify({ channel: message.channel, ts: message.ts, user: message.user, text: message.text }),
    }),
  );
});

app.action("approve", async ({ ack, action }) => {
  await ack();
  const value = JSON.parse((action as { value: string }).value) as { taskToken: string };
  await sfn.send(new SendTaskSuccessCommand({ taskToken: value.taskToken, output: JSON.stringify({ decision: "approved" }) }));
});

export const handler = receiver.toHandler();
