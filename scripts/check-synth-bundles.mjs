// What `cdk synth` wrote is what deploys: every step Lambda bundle in cdk.out must throw its errors under their
// taxonomy names (Step Functions' ErrorEquals matches them). Run after `cdk synth` (.ci/run does).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const out = resolve(process.argv[2] ?? "cdk.out");
if (!existsSync(out)) {
  console.error(`check-synth-bundles: ${out} does not exist; run \`npx cdk synth --quiet\` first`);
  process.exit(2);
}
// The step Lambdas' asset folders, from the synthesized template (the HTTP entry points need their settings at import).
const templateFile = readdirSync(out).find((f) => f.endsWith(".template.json"));
if (templateFile === undefined) {
  console.error(`check-synth-bundles: no template in ${out}`);
  process.exit(2);
}
const resources = Object.entries(JSON.parse(readFileSync(join(out, templateFile), "utf8")).Resources);
const bundles = resources
  .filter(([id, r]) => r.Type === "AWS::Lambda::Function" && !/^(Ingress|Web|FreeeMcp)/.test(id) && typeof r.Metadata?.["aws:asset:path"] === "string")
  .map(([, r]) => join(out, r.Metadata["aws:asset:path"], "index.mjs"))
  .filter((file) => existsSync(file));
let steps = 0;
const wrong = [];
for (const file of bundles) {
  const mod = await import(pathToFileURL(file).href);
  if (mod.step === undefined) continue; // ingress / MCP: HTTP entry points, not Task resources
  steps += 1;
  const err = await mod.handler({ not: "an input" }).then(() => undefined, (e) => e);
  if (err?.name !== "BadRequestError") {
    wrong.push(`${file}: threw ${err?.name}`);
  }
}
if (steps === 0) wrong.push("no step Lambda bundle found in cdk.out");
if (wrong.length > 0) {
  console.error(`check-synth-bundles: error names lost in the synthesized bundles:\n  ${wrong.join("\n  ")}`);
  process.exit(1);
}
console.log(`check-synth-bundles: ${steps} step Lambda bundles throw BadRequestError by name`);
