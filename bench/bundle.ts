import { build, type Metafile } from "esbuild";
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { esbuildOptions, INGRESS_BUNDLING, LAMBDA_BUNDLING, type LambdaBundling } from "../infra/bundling";

/**
 * The bench bundles with the stack's own options (infra/bundling.ts): platform node, target node22, ESM,
 * minified with names kept, external source map, no externals. Ours is bundled as the stack bundles the ingress
 * (INGRESS_BUNDLING: Bolt's unused receivers aliased away); the naive baseline with the plain options (PLAIN_BUNDLING), as a
 * tutorial app would ship (the aliased baseline is measured too, for reference).
 */
export const LAMBDA_BUNDLE_OPTIONS = esbuildOptions(LAMBDA_BUNDLING);
export const INGRESS_BUNDLE_OPTIONS = esbuildOptions(INGRESS_BUNDLING);

export interface BundleResult {
  file: string;
  bundleBytes: number;
  gzipBytes: number;
  /** The source map beside it (not loaded by Node unless --enable-source-maps; shipped in the zip). */
  sourceMapBytes: number;
  /** Input bytes by package (node_modules/<pkg> or "app"), largest first: where the size comes from. */
  topInputs: Array<{ name: string; bytes: number }>;
}

export async function bundleLambda(entry: string, outDir: string, bundling: LambdaBundling = LAMBDA_BUNDLING): Promise<BundleResult> {
  const file = join(outDir, "index.mjs");
  const result = await build({ ...esbuildOptions(bundling), entryPoints: [entry], outfile: file, metafile: true });
  return describeBundle(file, Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined));
}

/**
 * Several Lambdas with the same options in one esbuild run: each still gets its own bundle
 * (`outDir/<name>/index.mjs`, no code splitting, as a separate build makes it), but the sources they share are
 * parsed once, which makes bundling every function several times faster.
 */
export async function bundleLambdas(entries: Record<string, string>, outDir: string, bundling: LambdaBundling = LAMBDA_BUNDLING): Promise<Record<string, BundleResult>> {
  const result = await build({
    ...esbuildOptions(bundling),
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, entry]) => [`${name}/index`, entry])),
    outdir: outDir,
    outExtension: { ".js": ".mjs" },
    metafile: true,
  });
  const out: Record<string, BundleResult> = {};
  for (const name of Object.keys(entries)) {
    const file = join(outDir, name, "index.mjs");
    const key = Object.keys(result.metafile.outputs).find((k) => resolve(k) === file);
    if (key === undefined) throw new Error(`bench: esbuild wrote no bundle for ${name}`);
    out[name] = describeBundle(file, result.metafile.outputs[key]);
  }
  return out;
}

export function describeBundle(file: string, output: Metafile["outputs"][string] | undefined): BundleResult {
  const code = readFileSync(file);
  const byPackage = new Map<string, number>();
  for (const [path, input] of Object.entries(output?.inputs ?? {})) {
    const name = packageOf(path);
    byPackage.set(name, (byPackage.get(name) ?? 0) + input.bytesInOutput);
  }
  return {
    file,
    bundleBytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
    sourceMapBytes: statSync(`${file}.map`).size,
    topInputs: [...byPackage.entries()]
      .map(([name, bytes]) => ({ name, bytes }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 8),
  };
}

function packageOf(path: string): string {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path.replaceAll("\\", "/"));
  return m === null ? "app" : m[1]!;
}
