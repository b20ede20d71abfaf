import "../dev/local/promise-with-resolvers";
import { startCountingDynamo } from "../bench/dynamo";
import { measurePipeline } from "../bench/pipeline";
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
process.env.POWERTOOLS_METRICS_DISABLED = "true";
const r = await measurePipeline(await startCountingDynamo());
console.log(JSON.stringify({ perTask: r.perTask.dynamoRequests, perPoll: r.perPoll.dynamoRequests, byItem: r.perTask.dynamoRequestsByItem, ops: r.perTask.dynamoRequestsByOperation }, null, 1));
process.exit(0);
