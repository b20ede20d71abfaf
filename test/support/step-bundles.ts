import { build, type Metafile } from "esbuild";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { esbuildOptions, LAMBDA_BUNDLING, type LambdaBundling } from "../../infra/bundling";
import { PROJECT_ROOT } from "../../infra/constructs/app-function";
import { PIPELINE_FUNCTIONS, RUN_FUNCTIONS, type StepFunctionName } from "../../infra/state-machines/functions";

/** A step Lambda as it ships: the esbuild bundle of lambdas/<name>/handler.ts, loaded as the runtime loads it. */
export interface BundledStep {
  handler: (event: unknown, context?: unknown) => Promise<unknown>;
  file: string;
}

export const STEP_FUNCTION_NAMES: readonly StepFunctionName[] = [...PIPELINE_FUNCTIONS, ...RUN_FUNCTIONS];

/**
 * Bundles every step Lambda with the stack's own bundling options (infra/bundling.ts, the same object the
 * NodejsFunctions get) into `outDir/<name>/index.mjs`. `bundling` lets a test prove what an option is for.
 */
export async function bundleSteps(outDir: string, bundling: LambdaBundling = LAMBDA_BUNDLING): Promise<Record<StepFunctionName, string>> {
  const files = await Promise.all(
    STEP_FUNCTION_NAMES.map(async (name) => {
      const dir = join(outDir, name);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, "index.mjs");
      const built = await build({ ...esbuildOptions(bundling), entryPoints: [join(PROJECT_ROOT, "lambdas", name, "handler.ts")], outfile: file, metafile: true });
      bundledInputs.set(name, new Set(Object.keys(built.metafile.inputs)));
      bundledBytes.set(name, bundleBytesOf(built.metafile));
      return [name, file] as const;
    }),
  );
  return Object.fromEntries(files) as Record<StepFunctionName, string>;
}

/** The source files each bundle of the last bundleSteps holds (esbuild's metafile, paths from the project root). */
export const bundledInputs = new Map<StepFunctionName, ReadonlySet<string>>();

/** The size of each bundle of the last bundleSteps (the .mjs Lambda loads; its source map is beside it). */
export const bundledBytes = new Map<StepFunctionName, number>();

/** The bytes of a build's entry output (not its source map). */
export function bundleBytesOf(metafile: Metafile): number {
  const output = Object.values(metafile.outputs).find((o) => o.entryPoint !== undefined);
  if (output === undefined) throw new Error("esbuild metafile without an entry output");
  return output.bytes;
}

/** Imports each bundle (module state, like a cold start, happens once per bundle and process). */
export async function loadBundledSteps(files: Record<StepFunctionName, string>): Promise<Record<StepFunctionName, BundledStep>> {
  const entries = await Promise.all(
    Object.entries(files).map(async ([name, file]) => {
      const mod = (await import(pathToFileURL(file).href)) as { handler: BundledStep["handler"] };
      return [name, { handler: mod.handler, file }] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<StepFunctionName, BundledStep>;
}
