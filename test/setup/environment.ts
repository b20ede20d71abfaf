// EMF metric lines are CloudWatch's input; tests that check them turn them back on (test/**/metrics.test.ts).
process.env.POWERTOOLS_METRICS_DISABLED ??= "true";
