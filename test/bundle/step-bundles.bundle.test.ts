import { build } from "esbuild";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bundlingOf, FUNCTIONS_DIR, isStepFunction, lambdaFunctions } from "../../bench/functions";
import { esbuildOptions, type LambdaBundling } from "../../infra/bundling";

/**
 * What each step Lambda and the freee MCP Lambda carry, on the esbuild output the stack ships (infra/bundling.ts,
 * bench/functions.ts bundlingOf): at most 1 MiB each, and none of the modules its step never runs (docs/bench.md,
 * every Lambda). The cold-start ratios themselves are the bench's (`npm run bench:functions`); these are the
 * contents that make them.
 */
interface Bundle {
  bytes: number;
  inputs: string[];
}

const bundles: Record<string, Bundle> = {};
const MCP = "freee-mcp";
const judged = () => [...lambdaFunctions().filter(isStepFunction), MCP];

beforeAll(async () => {
  const groups = new Map<LambdaBundling, string[]>();
  for (const fn of judged()) groups.set(bundlingOf(fn), [...(groups.get(bundlingOf(fn)) ?? []), fn]);
  for (const [bundling, fns] of groups) {
    const result = await build({
      ...esbuildOptions(bundling),
      entryPoints: Object.fromEntries(fns.map((fn) => [`${fn}/index`, join(FUNCTIONS_DIR, fn, "handler.ts")])),
      outdir: "/bundle-test",
      outExtension: { ".js": ".mjs" },
      metafile: true,
      write: false,
    });
    for (const [path, output] of Object.entries(result.metafile.outputs)) {
      const fn = /([^/]+)\/index\.mjs$/.exec(path)?.[1];
      if (fn !== undefined && fns.includes(fn)) bundles[fn] = { bytes: output.bytes, inputs: Object.keys(output.inputs) };
    }
  }
}, 120_000);

/** The freee tool registry with its schemas and validators, and what only it brings. */
const REGISTRY = [/node_modules\/ajv\//, /node_modules\/ajv-formats\//, /^lib\/freee\/openapi\//, /^lib\/freee\/tools\/(registry|define|typed-tools|generic-tools|upload-tool|normalise)\.ts$/];
/** What `npm run generate` runs at build time (the tools' input schemas, the layers' output formats): never shipped. */
const BUILD_TIME = [/node_modules\/zod\/v4\/core\/(to-json-schema|json-schema-processors)\.js$/, /^lib\/freee\/tools\/(input-schemas|generate)\.ts$/, /^lib\/model\/(output-schemas|prompts\/generate)\.ts$/];
const carries = (fn: string, patterns: RegExp[]) => bundles[fn]!.inputs.filter((path) => patterns.some((re) => re.test(path)));

describe("step and MCP bundles", () => {
  it("every step Lambda and the freee MCP Lambda is at most 1 MiB", () => {
    expect(Object.keys(bundles).sort()).toEqual(judged().sort());
    const over = Object.entries(bundles).filter(([, b]) => b.bytes > 2 ** 20).map(([fn, b]) => `${fn} ${b.bytes}`);
    expect(over).toEqual([]);
  });

  it("GeneratePrompt carries the tool catalogue as text, not the registry it is rendered from", () => {
    expect(carries("generate-prompt", REGISTRY)).toEqual([]);
    expect(bundles["generate-prompt"]!.inputs).toContain("lib/model/prompts/tool-catalogue.generated.ts");
    expect(bundles["generate-prompt"]!.inputs).not.toContain("lib/model/tool-catalogue.ts");
  });

  it("no step Lambda nor the MCP one carries what is made at build time: zod's JSON Schema conversion or a generator", () => {
    const steps = judged();
    expect(steps.filter((fn) => carries(fn, BUILD_TIME).length > 0).map((fn) => `${fn}: ${carries(fn, BUILD_TIME).join(", ")}`)).toEqual([]);
    // The layers still carry the formats and the schemas, as data.
    expect(bundles["generate-process"]!.inputs).toContain("lib/model/prompts/output-formats.generated.ts");
    expect(bundles["generate-process"]!.inputs).toContain("lib/freee/tools/input-schemas.generated.ts");
  });

  it("the freee MCP Lambda answers JSON-RPC itself: no MCP SDK, so no full zod with its schema of every MCP message", () => {
    expect(carries(MCP, [/node_modules\/@modelcontextprotocol\//, /node_modules\/zod\/v4\/classic\//, /node_modules\/zod-to-json-schema\//])).toEqual([]);
    expect(bundles[MCP]!.inputs).toContain("lib/mcp/json-rpc.ts");
  });
});
