#!/usr/bin/env node
// `npm test`: the type check and the whole vitest suite, side by side. The suite spends much of its time
// waiting on servers and polls, so tsc fits into that time instead of adding its own. Fails if either fails;
// tsc's errors are printed after the suite's report, so they are not lost in it.
import { spawn } from "node:child_process";

const tsc = spawn("npx", ["tsc", "--noEmit"], { stdio: ["ignore", "pipe", "pipe"] });
let tscOutput = "";
tsc.stdout.on("data", (chunk) => (tscOutput += chunk));
tsc.stderr.on("data", (chunk) => (tscOutput += chunk));
const tscDone = new Promise((resolve) => tsc.on("close", (code) => resolve(code ?? 1)));

const vitest = spawn("npx", ["vitest", "run", ...process.argv.slice(2)], { stdio: "inherit" });
const vitestCode = await new Promise((resolve) => vitest.on("close", (code) => resolve(code ?? 1)));
const tscCode = await tscDone;

process.stdout.write(tscCode === 0 ? "\ntsc --noEmit: no type errors\n" : `\ntsc --noEmit failed (exit ${tscCode}):\n${tscOutput}\n`);
process.exit(vitestCode !== 0 ? vitestCode : tscCode);
