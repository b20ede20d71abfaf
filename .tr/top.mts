import { build } from "esbuild";
import { esbuildOptions, LAMBDA_BUNDLING } from "/work/wt-int/infra/bundling";
const r = await build({ ...esbuildOptions(LAMBDA_BUNDLING), entryPoints: [`/work/wt-int/lambdas/${process.argv[2]}/handler.ts`], outfile: "/tmp/mcpb/top/index.mjs", metafile: true });
const out = Object.values(r.metafile.outputs).find((o) => o.entryPoint)!;
const top = Object.entries(out.inputs).filter(([p]) => !p.includes("node_modules")).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput).slice(0, 15);
for (const [p, s] of top) console.log(s.bytesInOutput, p);
const imp = new Map<string,string[]>(); for (const [p,i] of Object.entries(r.metafile.inputs)) for (const x of i.imports) { (imp.get(x.path) ?? imp.set(x.path, []).get(x.path)!).push(p); }
for (const t of ["lib/freee/openapi/packed-requests.ts", "lib/freee/openapi/validator.ts"]) console.log(t, "<-", imp.get(t));
const chain = (t: string) => { const c=[t]; let cur=t; const seen=new Set([t]); for(;;){ const up=(imp.get(cur)??[]).find(p=>!seen.has(p)); if(!up)break; c.push(up); seen.add(up); cur=up;} return c.join(" <- "); };
console.log(chain("lib/freee/openapi/operations.ts")); console.log(chain("lib/freee/write-reconciler.ts"));
for (const t of ["lib/freee/openapi/operations.ts","lib/freee/write-reconciler.ts"]) console.log(t, "<-", imp.get(t));
