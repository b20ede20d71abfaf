import { build } from "esbuild";
import { esbuildOptions, INGRESS_BUNDLING } from "/work/wt-int/infra/bundling";
const entry = process.argv[2]; const target = new RegExp(process.argv[3]);
const r = await build({ ...esbuildOptions(INGRESS_BUNDLING), entryPoints: [entry], outfile: "/tmp/mcpb/trace/index.mjs", metafile: true, write: true });
const inputs = r.metafile.inputs;
const importers = new Map<string, string[]>();
for (const [p, i] of Object.entries(inputs)) for (const imp of i.imports) { if (!importers.has(imp.path)) importers.set(imp.path, []); importers.get(imp.path)!.push(p); }
const start = Object.keys(inputs).find((p) => target.test(p))!;
let cur = start; const chain = [cur];
const seen = new Set([cur]);
while (true) { const up = (importers.get(cur) ?? []).find((p) => !seen.has(p) && !p.includes("node_modules")) ?? (importers.get(cur) ?? []).find((p) => !seen.has(p)); if (!up) break; chain.push(up); seen.add(up); cur = up; }
console.log(chain.join("\n  <- "));
const sizes = Object.entries(r.metafile.outputs)[0][1].inputs; const top = Object.entries(sizes).filter(([p]) => !p.includes("node_modules")).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput).slice(0, 12);
for (const [p, s] of top) console.log(s.bytesInOutput, p);
console.log("start", start, Object.keys(inputs).filter(p=>p.includes("ajv")).length);
