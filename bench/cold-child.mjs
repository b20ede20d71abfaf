// One cold start, in a fresh `node` process: import the bundle (module init), then call its handler once, as
// `call` says (bench/cold.ts), and print JSON. The calls need no AWS:
// - slack: one signed url_verification (our ingress finishes its async init inside the first request); the body
//   and its signed headers come from the parent (bench/cold.ts signs through dev/local/slack-signature.ts);
// - healthz: GET /healthz, answered after the function's whole wiring (settings as plain values, no secret read);
// - step: the state's input `{}`, which a step refuses (BadRequestError) before it builds its deps;
// - bare: `{}` to a handler that answers anything;
// - import: no call (every call would reach DynamoDB).
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const [file, call, body, signedHeaders] = process.argv.slice(2);
const t0 = performance.now();
const mod = await import(pathToFileURL(file).href);
const t1 = performance.now();

function urlEvent(method, path, headers, requestBody) {
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: path,
    rawQueryString: "",
    headers,
    ...(requestBody === undefined ? {} : { body: requestBody }),
    isBase64Encoded: false,
    requestContext: { http: { method, path, sourceIp: "127.0.0.1" }, requestId: "cold", timeEpoch: Date.now() },
  };
}

function fail(what) {
  process.stderr.write(`unexpected cold response (${call}): ${what}\n`);
  process.exit(2);
}

if (call === "slack") {
  const response = await mod.handler(urlEvent("POST", "/slack/events", { "content-type": "application/json", ...JSON.parse(signedHeaders) }, body), {});
  if (response.statusCode !== 200 || !String(response.body).includes("bench-challenge")) fail(JSON.stringify(response));
} else if (call === "healthz") {
  const response = await mod.handler(urlEvent("GET", "/healthz", {}), { getRemainingTimeInMillis: () => 10_000 });
  if (response.statusCode !== 200) fail(JSON.stringify(response));
} else if (call === "step") {
  const outcome = await mod.handler({}, undefined).then(
    (value) => ({ value }),
    (err) => ({ err }),
  );
  if (outcome.err?.name !== "BadRequestError") fail(outcome.err === undefined ? `answered ${JSON.stringify(outcome.value)}` : `${outcome.err.name}: ${outcome.err.message}`);
} else if (call === "bare") {
  const response = await mod.handler({}, {});
  if (typeof response !== "object" || response === null) fail(JSON.stringify(response));
} else if (call !== "import") {
  fail(`no such call ${call}`);
}
const t2 = performance.now();
// A marked line: the app may log to stdout too.
process.stdout.write(`\nBENCH_RESULT ${JSON.stringify({ importMs: t1 - t0, firstResponseMs: t2 - t0 })}\n`);
// Lingering keep-alive sockets (Bolt's auth.test) must not hold the process: the sample is taken.
process.exit(0);
