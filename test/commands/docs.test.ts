import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OPERATOR_SECRETS, SECRET_NAMES } from "../../infra/constructs/data";

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
const generated = SECRET_NAMES.filter((n) => !OPERATOR_SECRETS.includes(n)).sort();
const names = (text: string) => [...text.matchAll(/`([A-Z][A-Z_]+)`/g)].map((m) => m[1]!).sort();

describe("docs agree with the code", () => {
  it("the generated secrets are the ones infra generates, and nothing tells the operator to fill one", () => {
    const readmeGenerated = /The HMAC secrets \(([^)]*)\) are\s+generated/.exec(README)?.[1];
    expect(names(readmeGenerated ?? "")).toEqual(generated);
    const infraRow = INFRA.split("\n").find((l) => l.includes("nothing: the generated value is the final one"));
    expect(names(infraRow?.split("|")[1] ?? "")).toEqual(generated);
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
    expect(min).toBe("20.12");
    for (const [doc, text] of Object.entries({ README, DEV })) expect(text, doc).toContain(`Node ${min} or later`);
    expect(INFRA).toContain(`Node ${min}+`);
  });

  it("the report's no-flag path is documented where the command is listed", () => {
    expect(README).toMatch(/npm run report[^\n]*`\.local\/dev-stack\.json`/);
    expect(DEV).toContain("`.local/dev-stack.json`");
    expect(read(".gitignore").split("\n")).toContain(".local/");
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
