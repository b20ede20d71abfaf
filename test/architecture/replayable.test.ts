import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { RANDOMIZED_TESTS } from "../support/seeds";

/** Every file under test/ (the suite's own code), as repository paths. */
function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, out);
    else if (path.endsWith(".ts")) out.push(path);
  }
  return out;
}

const sources = files("test").map((path) => ({ path, text: readFileSync(path, "utf8") }));

it("a randomized test draws from the fixed seed lists: its failures replay, CI runs the same draws each time", () => {
  const drawing = sources.filter((f) => /\bfc\.(assert|check)\(|\bseededRandom\(/.test(f.text) && f.path !== join("test", "support", "seeds.ts")).map((f) => f.path);
  expect(drawing.sort()).toEqual([...RANDOMIZED_TESTS].sort());
  for (const f of sources.filter((x) => RANDOMIZED_TESTS.includes(x.path))) expect(f.text, f.path).toMatch(/\bseedsFor\(/);
  // fast-check draws a fresh seed per run unless given one.
  for (const f of sources) {
    for (const call of f.text.matchAll(/\bfc\.(?:assert|check)\([\s\S]*?\n\s*\);/g)) expect(call[0], `${f.path}: fc.assert without { seed }`).toMatch(/\bseed\b/);
  }
});

it("no test seeds itself from the clock", () => {
  for (const f of sources) expect(f.text, f.path).not.toMatch(/seed[^\n]*Date\.now\(\)|Date\.now\(\)\s*%/);
});
