/** CloudWatch namespace of every metric; the alarms in infra/ read the same names. */
export const METRICS_NAMESPACE = "SlackMcpAgent";
/** Powertools adds `service` to every metric's dimensions; alarms must name it too. */
export const METRICS_SERVICE = "slack-mcp-agent";

/** Slack callbacks that are no event (dimension Type, e.g. app_rate_limited), counted by the ingress. */
export const SLACK_CALLBACKS_METRIC = "SlackCallbacks";

/**
 * Plans that can no longer be approved (dimensions Reason, Stage): `invalidated` by the freee reconnect that
 * switched company, `click` for an approval clicked on one afterwards. Counted by the web and ingress Lambdas.
 */
export const APPROVALS_REFUSED_METRIC = "ApprovalsRefused";

/**
 * One count as a CloudWatch embedded-metric (EMF) line on stdout, the format Powertools Metrics writes, without
 * its package: the Slack ingress counts the rare Slack callbacks (lib/ingress/slack-events.ts) and stays small for
 * its cold start (docs/bench.md). POWERTOOLS_METRICS_DISABLED=true turns it off, as it does Powertools Metrics.
 */
export function emitCount(name: string, dimensions: Record<string, string>, write: (line: string) => void = (line) => void process.stdout.write(line)): void {
  if (process.env.POWERTOOLS_METRICS_DISABLED === "true") return;
  const all = { service: METRICS_SERVICE, ...dimensions };
  const metric = { Namespace: METRICS_NAMESPACE, Dimensions: [Object.keys(all)], Metrics: [{ Name: name, Unit: "Count" }] };
  write(`${JSON.stringify({ _aws: { Timestamp: Date.now(), CloudWatchMetrics: [metric] }, ...all, [name]: 1 })}\n`);
}
