import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The layout's one-way rules (README "Layout"), read from the source's own imports: what ships (lib/, wiring/, lambdas/)
// never reaches what does not (infra/ is the CDK app, dev/ the local stack, sandbox and fakes), and the folders
// of lib/ stand in layers: no import runs back up, so no two folders need each other.
const ROOT = resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
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
  it("nothing in lib/, wiring/ or lambdas/ imports infra/ or dev/", () => {
    const offenders = [...sourceFiles("lib"), ...sourceFiles("wiring"), ...sourceFiles("lambdas")].flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith("infra/") || target.startsWith("dev/"))
        .map((target) => `${file} -> ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the domain holds no wiring: lib/ never imports wiring/ or lambdas/, and wiring/ never imports lambdas/", () => {
    const offenders = [
      ...sourceFiles("lib").flatMap((file) => importsOf(file).filter((t) => t.startsWith("wiring/") || t.startsWith("lambdas/")).map((t) => `${file} -> ${t}`)),
      ...sourceFiles("wiring").flatMap((file) => importsOf(file).filter((t) => t.startsWith("lambdas/")).map((t) => `${file} -> ${t}`)),
    ];
    expect(offenders).toEqual([]);
  });

  it("only lib/store issues DynamoDB commands: elsewhere the SDK is imported for its types alone", () => {
    const DYNAMO = /import\s+(type\s+)?\{([^}]*)\}\s+from\s+"@aws-sdk\/(lib|client)-dynamodb"/g;
    const offenders = [...sourceFiles("lib"), ...sourceFiles("wiring"), ...sourceFiles("lambdas")]
      .filter((file) => !file.startsWith("lib/store/"))
      .flatMap((file) =>
        [...readFileSync(join(ROOT, file), "utf8").matchAll(DYNAMO)]
          .filter((m) => m[1] === undefined && m[2]!.split(",").some((name) => name.trim() !== "" && !name.trim().startsWith("type ")))
          .map((m) => `${file}: ${m[0]}`),
      );
    expect(offenders).toEqual([]);
  });

  it("the folders of lib/ import each other one way only (no cycle between folders)", () => {
    const folderOf = (path: string) => path.split("/")[1] ?? "";
    // folder -> folder -> one file -> target that shows the arrow
    const arrows = new Map<string, Map<string, string>>();
    for (const file of sourceFiles("lib")) {
      for (const target of importsOf(file)) {
        if (!target.startsWith("lib/") || folderOf(target) === folderOf(file)) continue;
        const from = arrows.get(folderOf(file)) ?? new Map<string, string>();
        if (!from.has(folderOf(target))) from.set(folderOf(target), `${file} -> ${target}`);
        arrows.set(folderOf(file), from);
      }
    }
    const cycles: string[] = [];
    const done = new Set<string>();
    const visit = (folder: string, path: string[]) => {
      if (path.includes(folder)) {
        const loop = [...path.slice(path.indexOf(folder)), folder];
        cycles.push(loop.slice(1).map((to, i) => arrows.get(loop[i]!)!.get(to)!).join(", "));
        return;
      }
      if (done.has(folder)) return;
      for (const next of arrows.get(folder)?.keys() ?? []) visit(next, [...path, folder]);
      done.add(folder);
    };
    for (const folder of arrows.keys()) visit(folder, []);
    expect(cycles).toEqual([]);
  });
});
