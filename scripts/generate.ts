import { execFileSync } from "node:child_process";
import { resolve } from "node:path";

/**
 * `npm run generate`: every module made at build time from the sources, in order — the typed tools' input schemas
 * first (lib/freee/tools/generate.ts), then the prompts, the tool catalogue (which shows those schemas) and the
 * layers' output formats (lib/model/prompts/generate.ts). Each runs in its own process, so the second reads what
 * the first wrote. The tests named in each generator fail when a module drifts from its sources.
 */
const root = resolve(import.meta.dirname, "..");
for (const generator of ["lib/freee/tools/generate.ts", "lib/model/prompts/generate.ts"]) {
  execFileSync(process.execPath, ["--import", "tsx", resolve(root, generator)], { cwd: root, stdio: "inherit" });
}
