import { writeFileSync, mkdirSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

/**
 * Ends a run by printing its 10 slowest test files (import + setup + tests), so a change that adds a minute is
 * seen in the change that adds it; every file's time goes to .local/test-times.json for comparing runs.
 */
export default class SlowestFiles implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const times = testModules
      .map((m) => {
        const d = m.diagnostic();
        return { file: m.relativeModuleId, ms: Math.round(d.collectDuration + d.setupDuration + d.prepareDuration + d.duration), state: m.state() };
      })
      .sort((a, b) => b.ms - a.ms);
    if (times.length === 0) return;
    mkdirSync(".local", { recursive: true });
    writeFileSync(".local/test-times.json", `${JSON.stringify(times, null, 1)}\n`);
    const lines = times.slice(0, 10).map((t) => `  ${(t.ms / 1000).toFixed(1).padStart(6)} s  ${t.file}${t.state === "failed" ? "  (failed)" : ""}`);
    process.stdout.write(`\nThe 10 slowest test files (all ${times.length} in .local/test-times.json):\n${lines.join("\n")}\n`);
  }
}
