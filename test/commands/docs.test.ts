import { existsSync, readdirSync, readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR_SECRETS, SECRET_NAMES } from "../../infra/constructs/data";
import { DEFAULT_SETTINGS } from "../../infra/settings";
import { ROUTES } from "../../lib/ingress/ingress";
import { deployedShape, serves, type DeployedShape } from "./deploy-docs";

/**
 * The README and the guides say what the code does: which secrets the stack generates (infra/constructs/data.ts)
 * and which the operator fills, that the first deploy keeps the outputs file fill-manifest reads, and the Node
 * versions package.json's engines allow.
 */
const read = (path: string) => readFileSync(path, "utf8");
const README = read("README.md");
const INFRA = read("docs/infra.md");
const SLACK = read("docs/slack.md");
const DEV = read("docs/dev.md");
const FREEE = read("docs/freee.md");
const DOCS = { README, ...Object.fromEntries(readdirSync("docs").filter((f) => f.endsWith(".md")).map((f) => [`docs/${f}`, read(`docs/${f}`)])) };
/** The rows of the first table under a heading: cells per row, header and rule skipped. */
function tableUnder(text: string, heading: string): string[][] {
  const after = text.slice(text.indexOf(heading));
  expect(after.length, heading).toBeLessThan(text.length + 1);
  const lines = after.split("\n");
  const start = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split("|").slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}
const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
const generated = SECRET_NAMES.filter((n) => !OPERATOR_SECRETS.includes(n)).sort();
const names = (text: string) => [...text.matchAll(/`([A-Z][A-Z_]+)`/g)].map((m) => m[1]!).sort();

describe("docs agree with the code", () => {
  it("the generated secrets are the ones infra generates, and nothing tells the operator to fill one", () => {
    const readmeGenerated = /The HMAC secrets \(([^)]*)\) are\s+generated/.exec(README)?.[1];
    expect(names(readmeGenerated ?? "")).toEqual(generated);
    const infraRow = INFRA.split("\n").find((l) => l.includes("nothing: the generated value is the final one"));
    expect(names(infraRow?.split("|")[1] ?? "")).toEqual(generated);
    const slackGenerated = /The HMAC secrets are\s+generated and need nothing: ([^.]*)\(docs\/infra\.md/.exec(SLACK)?.[1];
    expect(names(slackGenerated ?? "")).toEqual(generated);
    expect(SLACK).not.toMatch(/creates them empty/);
    const readmeFill = /\*\*Secrets\*\*: fill ([\s\S]*?) in Secrets Manager/.exec(README)?.[1];
    expect(names(readmeFill ?? "")).toEqual([...OPERATOR_SECRETS].sort());
    for (const [doc, text] of Object.entries({ README, INFRA, SLACK })) {
      for (const secret of generated) {
        expect(text, `${doc} asks for a value of ${secret}`).not.toMatch(new RegExp(`(random|fill|put)[^.]{0,40}\`${secret}\``));
      }
    }
  });

  it("every first deploy keeps the outputs file, and fill-manifest is shown reading that file", () => {
    for (const [doc, text] of Object.entries({ README, INFRA, SLACK })) {
      const deploys = text.split("\n").filter((l) => /npx cdk deploy(\s|$)/.test(l));
      expect(deploys.length, doc).toBeGreaterThan(0);
      for (const line of deploys) expect(line, `${doc}: ${line}`).toContain("--outputs-file cdk-outputs.json");
    }
    for (const [doc, text] of Object.entries({ README, INFRA, SLACK })) expect(text, doc).toContain("node scripts/fill-manifest.mjs --outputs cdk-outputs.json");
  });

  it("the Node versions the docs state are package.json's engines", () => {
    const engines = (JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node;
    const min = /^>=(\d+\.\d+)$/.exec(engines)?.[1];
    expect(min).toBe("22.12");
    for (const [doc, text] of Object.entries({ README, DEV })) expect(text, doc).toContain(`Node ${min} or later`);
    expect(INFRA).toContain(`Node ${min}+`);
  });

  it("the suite runs on the Node the Lambdas run: the dev dependency `node` 22, first on npm's PATH", () => {
    const dev = (JSON.parse(read("package.json")) as { devDependencies: Record<string, string> }).devDependencies;
    expect(dev.node).toMatch(/^\^22\./);
    // npm test puts node_modules/.bin first on PATH: a run that reached vitest through another Node fails here.
    expect(process.versions.node.split(".")[0]).toBe("22");
  });

  it("the report's no-flag path is documented where the command is listed", () => {
    expect(README).toMatch(/npm run report[^\n]*`\.local\/dev-stack\.json`/);
    expect(DEV).toContain("`.local/dev-stack.json`");
    expect(read(".gitignore").split("\n")).toContain(".local/");
  });

  it("the repository holds no DynamoDB Local telemetry id, and .env.example describes the DynamoDB the stack runs", () => {
    // This run's DynamoDB Local (test/setup) started in the repository: with telemetry on it writes the file here.
    expect(existsSync("dynamodb-local-metadata.json"), "DynamoDB Local ran with telemetry on (or the file is left from an older run: delete it)").toBe(false);
    expect(read(".gitignore").split("\n")).toContain("dynamodb-local-metadata.json");
    const example = read(".env.example");
    expect(example).not.toMatch(/dynalite/i);
    expect(example).toContain("DynamoDB Local");
    expect(example).toContain("# DYNAMODB_ENDPOINT=");
  });

  it("docs/dev.md describes every end-to-end test file, and the README's sandbox names the page's panel, Home tab and file picker", () => {
    for (const file of readdirSync("test/e2e").filter((f) => f.endsWith(".test.ts"))) expect(DEV, file).toContain(`\`${file}\``);
    const page = read("dev/sandbox/page.html");
    for (const [control, words] of [['id="fault-id"', "fault panel"], ['id="tab-home"', "ホーム"], ['id="file"', "📎"]] as const) {
      expect(page, control).toContain(control);
      expect(README, words).toContain(words);
    }
  });
});

describe("the deploy docs name what the stack and its routers have", () => {
  let shape: DeployedShape;
  beforeAll(async () => {
    shape = await deployedShape();
  });

  it("docs/infra.md's outputs table is every output of the stack, and every output a doc names exists", () => {
    const documented = tableUnder(INFRA, "## Outputs").flatMap(([cell]) => ticked(cell!));
    const expanded = documented.flatMap((n) => (n === "<Name>SecretArn" ? shape.outputs.filter((o) => o.endsWith("SecretArn")) : [n]));
    expect(expanded.sort()).toEqual(shape.outputs);
    for (const [doc, text] of Object.entries(DOCS)) {
      for (const m of text.matchAll(/`([A-Z][a-z][A-Za-z]*(?:Url|Arn))`/g)) expect(shape.outputs, `${doc} names ${m[1]}`).toContain(m[1]);
    }
  });

  it("docs/infra.md counts the stack's public Function URLs, and names each one's output", () => {
    const words = ["zero", "one", "two", "three", "four", "five"];
    expect(INFRA).toMatch(new RegExp(`\\b${words[shape.functionUrls]} public\\s+Function URLs`));
    const bases = [...shape.urlOutputs].filter(([, v]) => v.path === "/").map(([k]) => k);
    expect(bases).toHaveLength(shape.functionUrls);
    const intro = INFRA.slice(0, INFRA.indexOf("## What is in the stack"));
    for (const name of bases) expect(intro, name).toContain(`\`${name}\``);
  });

  it("docs/slack.md's routes are the router's, each served by the Function URL it names and 404 on the other", async () => {
    const rows = tableUnder(SLACK, "# Slack app").map(([route, urls]) => ({ route: ticked(route!)[0]!, urls: ticked(urls!) }));
    expect(rows.map((r) => r.route).sort()).toEqual([...ROUTES].sort());
    for (const { route, urls } of rows) {
      for (const [output, { lambda, path }] of shape.urlOutputs) {
        if (path !== "/" || !(lambda in shape.routers)) continue;
        expect(await serves(shape.routers[lambda]!, route), `${route} on ${output}`).toBe(urls.includes(output));
      }
    }
  });

  it("every URL output with a path is a route that its own Function URL serves", async () => {
    for (const [output, { lambda, path }] of shape.urlOutputs) {
      if (path === "/" || !(lambda in shape.routers)) continue;
      const route = ROUTES.find((r) => r.endsWith(` ${path}`));
      expect(route, `${output} ${path}`).toBeDefined();
      expect(await serves(shape.routers[lambda]!, route!), `${output}: ${route} on ${lambda}`).toBe(true);
    }
  });

  it("publicBaseUrl / PUBLIC_BASE_URL is the web Function URL wherever the docs set it", () => {
    const web = [...shape.urlOutputs].find(([, v]) => v.lambda === "web" && v.path === "/")![0];
    for (const [doc, text] of Object.entries({ README, INFRA })) {
      const m = /publicBaseUrl=<(\w+) output>|take the `(\w+)` output and/.exec(text);
      expect(m, doc).not.toBeNull();
      expect(m![1] ?? m![2], doc).toBe(web);
    }
    expect(FREEE).toMatch(new RegExp(`\`PUBLIC_BASE_URL\` \\| connect \\| the web Function URL \\(\`${web}\``));
    for (const [doc, text] of Object.entries(DOCS)) expect(text, doc).not.toMatch(/PUBLIC_BASE_URL`? is the ingress|publicBaseUrl=<IngressUrl/);
  });

  it("docs/infra.md's settings are the stack's settings, with their defaults", () => {
    const rows = tableUnder(INFRA, "## Settings (CDK context)");
    const keys = rows.flatMap(([cell]) => ticked(cell!));
    expect(keys.sort()).toEqual([...Object.keys(DEFAULT_SETTINGS), "stackName"].sort());
    for (const [cell, def] of rows) {
      const [key] = ticked(cell!);
      const value = (DEFAULT_SETTINGS as unknown as Record<string, unknown>)[key!];
      if (typeof value === "number") expect(def!.split(" ")[0], key).toBe(String(value));
      if (value === undefined && key !== "stackName") expect(def, key).toBe("unset");
    }
  });
});
