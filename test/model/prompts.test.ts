import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { L1_SYSTEM_PROMPT } from "../../lib/model/l1-task";
import { L2_SYSTEM_PROMPT } from "../../lib/model/l2-prompt";
import { L3_SYSTEM_PROMPT } from "../../lib/model/l3-process";
import { CATALOGUE_FILE, GENERATED_FILE, OUTPUT_FORMATS_FILE, renderOutputFormatsModule, renderPromptModule } from "../../lib/model/prompts/generate";
import { L1OutputSchema, L3OutputSchema, outputFormatOf } from "../../lib/model/output-schemas";
import { L1_OUTPUT } from "../../lib/model/l1-task";
import { L3_OUTPUT } from "../../lib/model/l3-process";
import { TOOL_CATALOGUE } from "../../lib/model/prompts/tool-catalogue.generated";
import { renderToolCatalogue } from "../../lib/model/tool-catalogue";
import { PROMPT_TEXTS } from "../../lib/model/prompts/prompt-texts.generated";

/** The prompts are Markdown files; the bundled module must match them (edit the .md, then regenerate). */

it("prompt-texts.generated.ts matches the .md files (run `npx tsx lib/model/prompts/generate.ts` after editing a prompt)", () => {
  expect(readFileSync(GENERATED_FILE, "utf8")).toBe(renderPromptModule());
});

it("tool-catalogue.generated.ts is the catalogue the registry renders (run `npx tsx lib/model/prompts/generate.ts` after changing a tool or the vendored schemas)", () => {
  // The text it inflates, not its compressed bytes: another zlib build may pack the same text differently.
  expect(TOOL_CATALOGUE).toBe(renderToolCatalogue());
  expect(readFileSync(CATALOGUE_FILE, "utf8")).toContain('import { brotliDecompressSync } from "node:zlib";');
});

it("output-formats.generated.ts is what L1's and L3's output schemas give (run `npm run generate` after changing one or a tool's name)", () => {
  expect(readFileSync(OUTPUT_FORMATS_FILE, "utf8")).toBe(renderOutputFormatsModule());
  expect(L1_OUTPUT.format).toEqual(outputFormatOf(L1OutputSchema));
  expect(L3_OUTPUT.format).toEqual(outputFormatOf(L3OutputSchema));
});

it("each layer's system prompt is its Markdown file (L2 and L3 plus the tool list from the registry)", () => {
  expect(Object.keys(PROMPT_TEXTS).sort()).toEqual(["l1-task.system", "l2-prompt.system", "l3-process.system"]);
  expect(L1_SYSTEM_PROMPT).toBe(PROMPT_TEXTS["l1-task.system"]);
  expect(L2_SYSTEM_PROMPT.startsWith(PROMPT_TEXTS["l2-prompt.system"])).toBe(true);
  expect(L2_SYSTEM_PROMPT).toContain("## 利用できるツール");
  expect(L3_SYSTEM_PROMPT.startsWith(PROMPT_TEXTS["l3-process.system"])).toBe(true);
  expect(L3_SYSTEM_PROMPT).toContain("## 利用できるツール");
});

it("the prompts are written in Japanese and name the sections the user messages carry", () => {
  const japanese = /[\u3040-\u30ff\u4e00-\u9fff]/;
  for (const p of [L1_SYSTEM_PROMPT, L2_SYSTEM_PROMPT, L3_SYSTEM_PROMPT]) expect(p).toMatch(japanese);
  for (const tag of ["<today>", "<message>"]) expect(L1_SYSTEM_PROMPT).toContain(tag);
  for (const tag of ["<task>", "<request>", "<previous_prompt>", "<rejection_reason>"]) expect(L2_SYSTEM_PROMPT).toContain(tag);
  for (const tag of ["<approved_prompt>", "<previous_steps>", "<rejection_reason>", "<validation_error>"]) expect(L3_SYSTEM_PROMPT).toContain(tag);
});

it("the system prompts are stable between loads (a changing prefix would defeat the prompt cache)", async () => {
  const again = await import("../../lib/model/tool-catalogue");
  expect(L3_SYSTEM_PROMPT).toContain(again.renderToolCatalogue());
  expect(L2_SYSTEM_PROMPT).toContain(again.renderToolCatalogue());
  expect(again.renderToolCatalogue()).toBe(again.renderToolCatalogue());
});
