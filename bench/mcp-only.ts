import { startCountingDynamo } from "./dynamo";
import { measureMcp, type McpSide } from "./mcp";

// `npm run bench:mcp [-- N]`: only the MCP part of `npm run bench` (bench/mcp.ts), N timed calls per side (default 200),
// for measuring a change to the MCP server's per-call path without the bundle, cold and warm parts.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const requests = Number(process.argv[2] ?? 200);
if (!Number.isInteger(requests) || requests < 1) throw new Error("npm run bench:mcp -- N: N is a positive integer");
const dynamo = await startCountingDynamo(process.env.TEST_DYNAMODB_ENDPOINT);
try {
  const result = await measureMcp({ requests, warmup: 10, dynamo });
  const line = (name: string, s: McpSide) =>
    `${name}: ours p50/p99 ${s.ours.p50Ms}/${s.ours.p99Ms} ms, forwarder ${s.forwarder.p50Ms}/${s.forwarder.p99Ms} ms, p99 ratio ${s.p99Ratio}, DynamoDB wait p50/p99 ${s.dynamoWait.p50Ms}/${s.dynamoWait.p99Ms} ms, DynamoDB requests/call ${s.dynamoRequests} ${JSON.stringify(s.dynamoRequestsByItem)}`;
  process.stdout.write(`${line("read", result.read)}\n${line("write", result.write)}\n`);
} finally {
  await dynamo.close();
}
process.exit(0);
