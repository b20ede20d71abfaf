import { L1_SYSTEM_PROMPT } from "./lib/layers/l1-task.ts";
import { L2_SYSTEM_PROMPT } from "./lib/layers/l2-prompt.ts";
import { L3_SYSTEM_PROMPT } from "./lib/layers/l3-process.ts";
import { renderToolCatalogue } from "./lib/layers/tool-catalogue.ts";
const est = (s: string) => { let a = 0, n = 0; for (const ch of s) (ch.charCodeAt(0) < 128 ? a++ : n++); return { chars: [...s].length, ascii: a, nonAscii: n, bytes: Buffer.byteLength(s) }; };
for (const [k, v] of Object.entries({ L1_SYSTEM_PROMPT, L2_SYSTEM_PROMPT, L3_SYSTEM_PROMPT, catalogue: renderToolCatalogue() })) console.log(k, est(v));
