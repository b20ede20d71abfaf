// Stands in for packages the ingress bundle leaves out (infra/bundling.ts INGRESS_BUNDLING): Bolt requires its
// Express, HTTP and Socket Mode receivers at load, but the ingress only ever constructs AwsLambdaReceiver.
module.exports = {};
