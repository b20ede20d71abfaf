import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// Code and docs cite only what the repository holds (docs/architecture.md and its own files): a reader who clones
// it must be able to follow every reference. The patterns are spelled so this file does not match itself.
const ROOT = resolve(import.meta.dirname, "../..");
const FOLDERS = ["lib", "wiring", "lambdas", "infra", "docs", "dev", "scripts", "bench", "test"];
const TEXT = /\.(ts|mts|mjs|js|md|html|css|json|ya?ml|txt)$/;
const SECTION = "\u00a7";
const CITATIONS = new RegExp(
  [
    `DESIGN ${SECTION}`,
    `DESIGN\\.md`,
    `[Ss]eed (${SECTION}|0\\d\\d\\b|[A-Z]-\\d)`,
    `seeds\\/`,
    `\\bissue [0-9]+`,
  ].join("|"),
);

function textFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && TEXT.test(e.name) && !e.parentPath.includes("node_modules"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

describe("citations", () => {
  it("no comment, test or doc cites a document the repository does not hold, or an issue number", () => {
    const files = [...FOLDERS.flatMap(textFiles), "README.md"];
    expect(files.length).toBeGreaterThan(300);
    const offenders = files.flatMap((file) =>
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .flatMap((line, i) => (CITATIONS.test(line) ? [`${file}:${i + 1}: ${line.trim().slice(0, 120)}`] : [])),
    );
    expect(offenders).toEqual([]);
  });
});
