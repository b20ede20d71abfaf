// One cold start, in a fresh `node` process: import the bundle (module init), then answer one signed
// url_verification request (our ingress finishes its async init inside the first request). Prints JSON.
// The body and its signed headers come from the parent (bench/cold.ts signs through dev/local/slack-signature.ts).
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const [file, body, signedHeaders] = process.argv.slice(2);
const t0 = performance.now();
const mod = await import(pathToFileURL(file).href);
const t1 = performance.now();
const event = {
  version: "2.0",
  routeKey: "$default",
  rawPath: "/slack/events",
  rawQueryString: "",
  headers: { "content-type": "application/json", ...JSON.parse(signedHeaders) },
  body,
  isBase64Encoded: false,
  requestContext: { http: { method: "POST", path: "/slack/events", sourceIp: "127.0.0.1" }, requestId: "cold", timeEpoch: Date.now() },
};
const response = await mod.handler(event, {});
const t2 = performance.now();
if (response.statusCode !== 200 || !String(response.body).includes("bench-challenge")) {
  process.stderr.write(`unexpected cold response: ${JSON.stringify(response)}\n`);
  process.exit(2);
}
// A marked line: the app may log to stdout too.
process.stdout.write(`\nBENCH_RESULT ${JSON.stringify({ importMs: t1 - t0, firstResponseMs: t2 - t0 })}\n`);
// Lingering keep-alive sockets (Bolt's auth.test) must not hold the process: the sample is taken.
process.exit(0);
