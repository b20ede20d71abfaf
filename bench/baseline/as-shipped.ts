import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { PROJECT_ROOT } from "../../infra/constructs/app-function";
import { describeBundle, type BundleResult } from "../bundle";

/**
 * The step Lambda as it shipped before each Lambda wired only its own ports: AwaitApproval built from the last commit
 * where one wiring (lib/pipeline/create-deps.ts) built every port for every step. In the synthesized template of that
 * commit every step bundle was 2,043–2,059 KiB; this is the reference the step goals are judged against, so it does not
 * move when today's ports shrink. It is built from the repository's own history (`git archive`) with this tree's
 * node_modules: the production dependencies in package.json are the same as at that commit.
 */
export const AS_SHIPPED_COMMIT = "d1cbfe764dad503f83a137ac9125f1b7e00accca";
const AS_SHIPPED_ENTRY = "lambdas/await-approval/handler.ts";

/** The reference cannot be built here (a shallow clone without that commit, or no git): said in the results. */
export class AsShippedUnavailableError extends Error {
  override readonly name = "AsShippedUnavailableError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Whether this clone holds the reference commit (a shallow clone may not). */
export function hasAsShippedCommit(root: string = PROJECT_ROOT): boolean {
  return spawnSync("git", ["-C", root, "cat-file", "-e", `${AS_SHIPPED_COMMIT}^{commit}`], { stdio: "ignore" }).status === 0;
}

/**
 * Extracts the reference commit into `workDir/as-shipped-src` (once per workDir) and bundles its AwaitApproval with that
 * commit's own bundling options (its infra/bundling.ts), into `workDir/as-shipped/index.mjs`.
 */
export async function bundleAsShipped(workDir: string): Promise<BundleResult> {
  if (!hasAsShippedCommit()) {
    throw new AsShippedUnavailableError(`bench: commit ${AS_SHIPPED_COMMIT.slice(0, 12)} is not in this clone's history (a shallow clone?): git fetch --unshallow builds the as-shipped reference`);
  }
  const src = join(workDir, "as-shipped-src");
  if (!existsSync(join(src, AS_SHIPPED_ENTRY))) {
    rmSync(src, { recursive: true, force: true });
    mkdirSync(src, { recursive: true });
    const tar = execFileSync("git", ["-C", PROJECT_ROOT, "archive", "--format=tar", AS_SHIPPED_COMMIT], { maxBuffer: 256 * 2 ** 20 });
    execFileSync("tar", ["-x", "-C", src], { input: tar });
    symlinkSync(join(PROJECT_ROOT, "node_modules"), join(src, "node_modules"), "dir");
  }
  const bundling = (await import(pathToFileURL(join(src, "infra", "bundling.ts")).href)) as typeof import("../../infra/bundling");
  const file = join(workDir, "as-shipped", "index.mjs");
  const result = await build({
    ...bundling.esbuildOptions(bundling.LAMBDA_BUNDLING),
    absWorkingDir: src,
    entryPoints: [join(src, AS_SHIPPED_ENTRY)],
    outfile: file,
    metafile: true,
  });
  return describeBundle(file, Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined));
}
