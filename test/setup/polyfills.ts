// aws-local-stepfunctions uses Promise.withResolvers (Node 22); CI and dev run Node 20. One polyfill, shared
// with the local stack (npm run dev).
import "../../dev/local/promise-with-resolvers";

// The AWS SDK warns once per process that it will require Node 22 from 2027; CI and dev run Node 20 on purpose.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

// EMF metric lines are CloudWatch's input; tests that check them turn them back on (test/**/metrics.test.ts).
process.env.POWERTOOLS_METRICS_DISABLED ??= "true";
