import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The layout's one-way rule (README "Layout"): what ships (lib/, lambdas/) never reaches what does not
// (infra/ is the CDK app, dev/ the local stack and sandbox). Read from the source's own imports.
const ROOT = resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** Every relative module a file imports (static, dynamic with a literal, re-export), as a path from the root. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(join(ROOT, file), "utf8"), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith("."))
    .map((name) => relative(ROOT, resolve(ROOT, dirname(file), name)));
}

describe("import direction", () => {
  it("nothing in lib/ or lambdas/ imports infra/ or dev/", () => {
    const offenders = [...sourceFiles("lib"), ...sourceFiles("lambdas")].flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith("infra/") || target.startsWith("dev/"))
        .map((target) => `${file} -> ${target}`),
    );
    expect(offenders).toEqual([]);
  });
});
