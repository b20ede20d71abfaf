import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { runCli, UsageError } from "./cli";
import { createSmokeAws } from "./smoke-aws";
import { runSmoke, type StackOutputs } from "./smoke-checks";

/**
 * `npm run smoke -- --outputs cdk-outputs.json [--stack SlackMcpAgent]`: after `cdk deploy` (or against the file
 * `npm run dev` writes, .local/cdk-outputs.json), one line per check with the fix for each that fails; exit 1
 * when one fails. Reads secrets' metadata only (the signing secret's value signs one request, never printed).
 */
const USAGE = "npm run smoke -- --outputs cdk-outputs.json [--stack SlackMcpAgent]";

await runCli("npm run smoke", async () => {
  const { values } = parseArgs({ options: { outputs: { type: "string" }, stack: { type: "string" } } });
  if (values.outputs === undefined) throw new UsageError("--outputs is required", `usage: ${USAGE} (the file \`npx cdk deploy --outputs-file cdk-outputs.json\` wrote)`);
  const outputs = stackOutputs(values.outputs, values.stack);
  const results = await runSmoke(outputs, createSmokeAws());
  const width = Math.max(...results.map((r) => r.check.length));
  for (const r of results) console.log(`${r.status.padEnd(4)} ${r.check.padEnd(width)}  ${r.detail}${r.fix === undefined ? "" : ` — fix: ${r.fix}`}`);
  const failed = results.filter((r) => r.status === "FAIL").length;
  console.log(failed === 0 ? `\nsmoke: all ${results.length} checks pass` : `\nsmoke: ${failed} of ${results.length} checks fail`);
  process.exitCode = failed === 0 ? 0 : 1;
});

/** cdk's --outputs-file: { "<StackName>": { "<Output>": "<value>" } }; the one stack, or the one --stack names. */
function stackOutputs(file: string, stack: string | undefined): StackOutputs {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "ENOENT") throw new UsageError(`${file} does not exist`, "deploy with `npx cdk deploy --outputs-file cdk-outputs.json` (or start `npm run dev`: .local/cdk-outputs.json)");
    if (err instanceof SyntaxError) throw new UsageError(`${file} is not JSON (${err.message})`, "pass the file `npx cdk deploy --outputs-file` wrote");
    throw err;
  }
  const stacks = Object.entries((parsed ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v === "object" && v !== null && "IngressUrl" in v);
  const chosen = stack === undefined ? stacks : stacks.filter(([name]) => name === stack);
  if (chosen.length !== 1) {
    const names = stacks.map(([n]) => n).join(", ") || "none";
    throw new UsageError(stack === undefined ? `${file} holds ${stacks.length} stacks with an IngressUrl (${names})` : `${file} has no stack ${stack} (it has: ${names})`, `pass --stack with one of them: ${USAGE}`);
  }
  return chosen[0]![1] as StackOutputs;
}
