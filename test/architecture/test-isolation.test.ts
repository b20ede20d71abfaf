import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ISOLATED_TESTS } from "../../vitest.config";

/** Test files under `dir`, as repository paths. */
function testFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) testFiles(path, out);
    else if (path.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

/** The file's path matches one of vitest's include globs (only `dir/**` + `/*.test.ts` and exact paths are used). */
function listed(path: string): boolean {
  return ISOLATED_TESTS.some((glob) => (glob.endsWith("/**/*.test.ts") ? path.startsWith(glob.slice(0, -"**/*.test.ts".length)) : path === glob));
}

it("a test file that imports a Lambda handler module runs in a process of its own (its module state is the cold start)", () => {
  const importing = testFiles("test").filter((path) => /(?:from\s+|import\()\s*["'`](?:\.\.\/)+lambdas\//.test(readFileSync(path, "utf8")));
  expect(importing.length).toBeGreaterThan(0);
  expect(importing.filter((path) => !listed(path)), "add these to ISOLATED_TESTS in vitest.config.ts").toEqual([]);
});

it("every exact path in the isolated list names a test file that exists", () => {
  for (const glob of ISOLATED_TESTS.filter((g) => !g.includes("*"))) expect(statSync(glob).isFile(), glob).toBe(true);
});
