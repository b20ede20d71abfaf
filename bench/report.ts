import type { BenchResults } from "./harness";

/** The bench's table: ours vs baseline with ratios, then the per-task / per-poll counts. */
export function printReport(r: BenchResults, print: (line: string) => void, run: { quick?: boolean } = {}): void {
  const m = r.machine;
  print(`machine: ${m.nproc} cores (${m.cpuModel}), ${m.memoryGiB} GiB, node ${m.node} ${m.platform}/${m.arch}`);
  print(`warm: ${r.settings.requests} timed requests per kind per side (+${r.settings.warmup} warm-up); cold: ${r.settings.coldRuns} fresh processes per side (node ${r.settings.coldNodeArgs.join(" ") || "without flags"})`);
  print("");
  const rows: Array<[string, string, string, string]> = [
    ["bundle bytes", kb(r.ingress.bundleBytes), kb(r.baseline.bundleBytes), x(r.ratios.bundleBytes)],
    ["bundle gzip", kb(r.ingress.gzipBytes), kb(r.baseline.gzipBytes), x(r.ratios.gzipBytes)],
    ["cold import (median)", ms(r.ingress.coldImportMsMedian), ms(r.baseline.coldImportMsMedian), x(r.ratios.coldImportMsMedian)],
    ["cold first response (median)", ms(r.ingress.coldFirstResponseMsMedian), ms(r.baseline.coldFirstResponseMsMedian), x(r.ratios.coldFirstResponseMsMedian)],
    ["warm p50 (all)", ms(r.ingress.warmP50Ms), ms(r.baseline.warmP50Ms), x(r.ratios.warmP50Ms)],
    ["warm p99 (all)", ms(r.ingress.warmP99Ms), ms(r.baseline.warmP99Ms), x(r.ratios.warmP99Ms)],
    ["warm p50 message", ms(r.ingress.warm.message.p50Ms), ms(r.baseline.warm.message.p50Ms), x(r.ingress.warm.message.p50Ms / r.baseline.warm.message.p50Ms)],
    ["warm p99 message", ms(r.ingress.warm.message.p99Ms), ms(r.baseline.warm.message.p99Ms), x(r.ratios.warmP99MsMessage)],
    ["warm p50 click", ms(r.ingress.warm.click.p50Ms), ms(r.baseline.warm.click.p50Ms), x(r.ingress.warm.click.p50Ms / r.baseline.warm.click.p50Ms)],
    ["warm p99 click", ms(r.ingress.warm.click.p99Ms), ms(r.baseline.warm.click.p99Ms), x(r.ratios.warmP99MsClick)],
  ];
  const wait = r.ingress.warm.clickDynamoWait;
  const rest = r.ingress.warm.clickWithoutDynamoWait;
  if (wait !== undefined && rest !== undefined) {
    rows.push(["  of it, DynamoDB's answer p50 / p99", `${ms(wait.p50Ms)} / ${ms(wait.p99Ms)}`, "(no write)", ""]);
    rows.push(["  the click without it, p99", ms(rest.p99Ms), ms(r.baseline.warm.click.p99Ms), x(rest.p99Ms / r.baseline.warm.click.p99Ms)]);
  }
  table(["", "ours", "baseline", "ours/baseline"], rows, print);
  const ack = r.ingress.ackUpstreamCalls;
  print(`upstream calls before the response (ours, warm): message ${ack.message}, approve ${ack.approve}, reject click ${ack.rejectClick}, reject submit ${ack.rejectSubmit}, cancel ${ack.cancel}`);
  const a = r.baselineAliased;
  print(`baseline with the ingress's aliases (reference, not a goal): bundle ${kb(a.bundleBytes)}, cold import ${ms(a.coldImportMsMedian)}, cold first response ${ms(a.coldFirstResponseMsMedian)}`);
  print("");
  if (run.quick === true) {
    // A few requests and cold runs give ratios too noisy to call a goal met or missed.
    print(`goals: not judged — a --quick run (${r.settings.requests} requests, ${r.settings.coldRuns} cold runs) is a smoke test; run \`npm run bench\` for the verdict`);
    print("ratios (against the naive baseline): " + Object.entries(r.goals).map(([k, g]) => `${k} ${g.ratio} (${g.goal})`).join("; "));
  } else {
    print("goals (against the naive baseline): " + Object.entries(r.goals).map(([k, g]) => `${k} ${g.ratio} (${g.goal}) ${g.met ? "met" : "MISSED"}`).join("; "));
  }
  print(`largest inputs of ours: ${r.ingress.topInputs.map((i) => `${i.name} ${kb(i.bytes)}`).join(", ")}`);
  print("");
  printFunctions(r, print);
  print("");
  printMcp(r, print);
  print("");
  printCost(r, print);
  print("");
  const t = r.perTask;
  const p = r.perPoll;
  table(
    ["per happy-path task", "count"],
    [
      ["state transitions", String(t.stateTransitions)],
      ["Lambda invocations (steps + ingress)", `${t.lambdaInvocations} (${t.stepLambdaInvocations} + ${t.ingressInvocations})`],
      ["DynamoDB requests", String(t.dynamoRequests)],
      ["Slack API calls", `${t.slackApiCalls} ${JSON.stringify(t.slackApiCallsByMethod)}`],
      ["Anthropic requests (Messages + Managed Agents)", `${t.anthropicRequests} (${t.anthropicMessagesRequests} + ${t.managedAgentsRequests})`],
      ["tokens in / out / cached (as the fakes report)", `${t.inputTokens} / ${t.outputTokens} / ${t.cachedInputTokens}`],
    ].map(([a, b]) => [a!, b!]),
    print,
  );
  print("");
  table(
    ["per L4 poll iteration", "count"],
    [
      ["state transitions", String(p.stateTransitions)],
      ["Lambda invocations", String(p.lambdaInvocations)],
      ["DynamoDB requests", String(p.dynamoRequests)],
      ["Slack API calls", String(p.slackApiCalls)],
      ["Managed Agents requests", String(p.managedAgentsRequests)],
    ],
    print,
  );
  print("");
  table(["prompt cache", "model", "static prefix (est. tokens)", "model minimum", "breakpoint"], cacheRows(r), print);
  const c = r.l3Catalogue;
  print(
    `L3 catalogue: ${c.operations} operations, ~${c.catalogueTokensEstimate} of the ~${c.prefixTokensEstimate}-token prefix (breakpoint ${c.breakpoint ? "yes" : "no"}); ` +
      `per task L3 input ${c.perTask.inputTokens}, cache read ${c.perTask.cacheReadInputTokens}, cache write ${c.perTask.cacheCreationInputTokens} (the cache served ${(c.perTask.cacheHitRatio * 100).toFixed(1)} % of the prompt, as the scripted replies report)`,
  );
}

function printFunctions(r: BenchResults, print: (line: string) => void): void {
  const all = r.functions.allInOne;
  print(`every Lambda, same run: cold = fresh node imports the bundle and calls the handler once (call: docs/bench.md); ratios against allInOne (every step and port in one bundle${all === undefined ? "" : `: ${kb(all.bundleBytes)}, ${ms(all.coldImportMsMedian)}`})`);
  const rows = Object.entries(r.functions).map(([name, f]) => [
    name,
    kb(f.bundleBytes),
    x(f.bundleRatioToAllInOne),
    ms(f.coldImportMsMedian),
    ms(f.importOnlyMsMedian),
    ms(f.coldProcessMsMedian),
    x(f.coldRatioToAllInOne),
    f.coldRatioToAsShipped === undefined ? "-" : x(f.coldRatioToAsShipped),
    f.call,
  ]);
  table(["function", "bundle", "/allInOne", "cold (median)", "import only", "process", "cold/allInOne", "cold/asShipped", "call"], rows, print);
  const shipped = r.functions.asShipped;
  print(shipped === undefined ? `asShipped: not built (${r.asShippedUnavailable ?? "no reason recorded"})` : `asShipped (the 2 MiB step bundle before per-Lambda wiring): ${kb(shipped.bundleBytes)}, ${ms(shipped.coldImportMsMedian)}`);
}

function printMcp(r: BenchResults, print: (line: string) => void): void {
  const m = r.mcp;
  print(`MCP tools/call (official SDK client; ours: ${m.tools.read} / ${m.tools.write} with every check; forwarder: one tool, same freee request, no checks)`);
  const rows = (["read", "write"] as const).map((kind) => {
    const s = m[kind];
    return [
      kind,
      `${ms(s.ours.p50Ms)} / ${ms(s.ours.p99Ms)}`,
      `${ms(s.forwarder.p50Ms)} / ${ms(s.forwarder.p99Ms)}`,
      x(s.p99Ratio),
      String(s.dynamoRequests),
      `${ms(s.dynamoWait.p50Ms)} / ${ms(s.dynamoWait.p99Ms)}`,
      `${ms(s.withoutDynamoWait.p99Ms)} = ${x(s.withoutDynamoWaitP99Ratio)}`,
    ];
  });
  table(["call", "ours p50 / p99", "forwarder p50 / p99", "p99 ratio", "DynamoDB requests", "DynamoDB wait p50 / p99", "ours without it, p99"], rows, print);
  for (const kind of ["read", "write"] as const) print(`  ${kind}: ${Object.entries(m[kind].dynamoRequestsByItem).map(([k, n]) => `${k} ×${n}`).join(", ")}`);
}

function printCost(r: BenchResults, print: (line: string) => void): void {
  const c = r.cost;
  // Per-poll figures are fractions of a micro-dollar: 8 places keep them visible.
  const usd = (v: number) => `$${v.toFixed(8)}`;
  print(`modelled cost at list prices (${c.region}, bench/prices.ts; Lambda ${c.memoryMb} MB arm64, durations measured on this machine)`);
  table(
    ["", "Step Functions", "Lambda requests", "Lambda GB-s", "DynamoDB reads", "DynamoDB writes", "total"],
    [
      ["one happy-path task", c.perTask],
      ["one poll iteration", c.perPoll],
    ].map(([name, a]) => {
      const cost = a as typeof c.perTask;
      return [name as string, usd(cost.stepFunctions), usd(cost.lambdaRequests), usd(cost.lambdaCompute), usd(cost.dynamoReads), usd(cost.dynamoWrites), usd(cost.total)];
    }),
    print,
  );
  print(`per task ${usd(c.perTaskUsd)}; per ${c.run.seconds} s run (${c.run.polls} polls every ${c.run.pollIntervalSeconds} s) ${usd(c.perRunUsd)}; model tokens of the task ${usd(c.modelUsd)} (${Object.entries(c.modelByLayer).map(([l, m]) => `${l} ${m.model} ${usd(m.usd)}`).join(", ")})`);
}

function cacheRows(r: BenchResults): string[][] {
  return Object.entries(r.promptCache).map(([layer, c]) => [
    layer,
    c.model,
    `~${c.prefixTokensEstimate}`,
    c.minCacheableTokens === undefined ? "unknown" : String(c.minCacheableTokens),
    c.breakpoint ? "yes" : "no (would cache nothing)",
  ]);
}

function table(header: string[], rows: string[][], print: (line: string) => void): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  print(line(header));
  print(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) print(line(row));
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const ms = (value: number) => `${value.toFixed(2)} ms`;
const x = (value: number) => `${value.toFixed(3)}x`;
