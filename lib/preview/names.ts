import type { ProcessStep } from "../core/domain/records";
import type { PreviewProblem, ResolvedName } from "../core/domain/preview";
import { getPath } from "../freee/tools/normalise";
import { setAt } from "./paths";
import type { FreeeReader, Read } from "./reader";

/**
 * Names the request gave for ids (「山田さん」, 「消耗品費」, 「サンプル商事」) resolved against freee to the id the
 * write will use, before approval (docs/architecture.md, the approved Process is the capability): the id is written into the step's input, so what runs is what
 * the card showed. A name that matches nothing, or more than one record, is a problem the card shows; it is
 * never settled by guessing.
 * Matching: the same name after Unicode normalisation without spaces and honorifics (さん, 様 …) first; then,
 * only when exactly one record fits, a family name (employees) or a part of the name (account items, partners).
 */

/** A step as L3 stores it, names marked in `nameRefs` (lib/core/domain/records.ts). */
export type StepWithNames = ProcessStep;

type Kind = "employee" | "account_item" | "partner";
const KIND_OF_FIELD: Array<[RegExp, Kind]> = [
  [/(^|\.)employee_id$/, "employee"],
  [/(^|\.)account_item_id$/, "account_item"],
  [/(^|\.)partner_id$/, "partner"],
];
const WHAT: Record<Kind, { noun: string; counter: string }> = {
  employee: { noun: "従業員", counter: "名" },
  account_item: { noun: "勘定科目", counter: "件" },
  partner: { noun: "取引先", counter: "件" },
};

interface Candidate {
  id: number;
  label: string;
  /** Employee number: a request may name someone by it. */
  num?: string;
}

export interface NameResolution {
  toolInput: Record<string, unknown>;
  resolved: ResolvedName[];
  problems: PreviewProblem[];
}

export async function resolveNames(step: StepWithNames, reader: FreeeReader, month: { year: number; month: number }): Promise<NameResolution> {
  const toolInput = structuredClone(step.toolInput);
  const resolved: ResolvedName[] = [];
  const problems: PreviewProblem[] = [];
  for (const ref of step.nameRefs ?? []) {
    const kind = KIND_OF_FIELD.find(([re]) => re.test(ref.field))?.[1];
    if (kind === undefined) {
      problems.push({ kind: "unresolvable_field", field: ref.field, name: ref.name, message: `「${ref.name}」（${ref.field}）は名前から freee の ID に解決できない項目です。却下して、ID を理由に書いてください。` });
      continue;
    }
    const list = await candidates(kind, ref.name, reader, month);
    if (!list.ok) {
      // The list itself could not be read: the name stays unresolved, which blocks the write as unknown does.
      problems.push({ kind: "unknown_name", field: ref.field, name: ref.name, message: `「${ref.name}」を確かめる${WHAT[kind].noun}の一覧を freee から読み取れませんでした（${list.reason}）。` });
      continue;
    }
    const match = matchName(kind, ref.name, list.value);
    const { noun, counter } = WHAT[kind];
    if (match.length === 0) {
      problems.push({ kind: "unknown_name", field: ref.field, name: ref.name, message: `「${ref.name}」に一致する${noun}が freee に見つかりません。却下して、正しい名前を理由に書いてください。` });
      continue;
    }
    if (match.length > 1) {
      const shown = match.slice(0, 5).map((c) => ({ id: c.id, label: c.label }));
      problems.push({
        kind: "ambiguous_name",
        field: ref.field,
        name: ref.name,
        candidates: shown,
        message: `「${ref.name}」に一致する${noun}が ${match.length} ${counter}あります（${shown.map((c) => c.label).join("、")}）。却下して、どれかを理由に書いてください。`,
      });
      continue;
    }
    const found = match[0]!;
    const given = getPath(toolInput, ref.field);
    if (given !== undefined && Number(given) !== found.id) {
      problems.push({ kind: "name_id_mismatch", field: ref.field, name: ref.name, message: `「${ref.name}」は freee では ${found.label}（ID ${found.id}）ですが、ステップには ID ${String(given)} が入っています。却下して、どちらが正しいか理由に書いてください。` });
      continue;
    }
    if (!setAt(toolInput, ref.field, found.id)) {
      problems.push({ kind: "unresolvable_field", field: ref.field, name: ref.name, message: `「${ref.name}」の ID を入れる場所（${ref.field}）がステップの入力にありません。` });
      continue;
    }
    resolved.push({ field: ref.field, name: ref.name, id: found.id, label: found.label });
  }
  return { toolInput, resolved, problems };
}

async function candidates(kind: Kind, name: string, reader: FreeeReader, month: { year: number; month: number }): Promise<Read<Candidate[]>> {
  switch (kind) {
    case "employee": {
      const read = await reader.employees(month.year, month.month);
      return read.ok ? { ok: true, value: read.value.map((e) => ({ id: e.id, label: e.display_name, ...(e.num ? { num: e.num } : {}) })) } : read;
    }
    case "account_item": {
      const read = await reader.accountItems();
      return read.ok ? { ok: true, value: read.value.map((a) => ({ id: a.id, label: a.name })) } : read;
    }
    case "partner": {
      // freee filters by keyword itself; a keyword that finds nothing leaves the whole list to compare against.
      const keyword = normalise(name, "partner");
      const byKeyword = keyword === "" ? undefined : await reader.partners(keyword);
      const read = byKeyword !== undefined && byKeyword.ok && byKeyword.value.length > 0 ? byKeyword : await reader.partners();
      return read.ok ? { ok: true, value: read.value.map((p) => ({ id: p.id, label: p.name })) } : read;
    }
  }
}

const HONORIFICS = /(さん|様|さま|くん|君|ちゃん|氏|殿)$/;
const COMPANY_FORMS = /株式会社|有限会社|合同会社|\(株\)|（株）|㈱|\(有\)|（有）|㈲/g;

/** NFKC, no spaces, no honorific; for partners also no company form (株式会社 …). */
export function normalise(text: string, kind: Kind): string {
  let s = text.normalize("NFKC").replace(/\s+/g, "");
  if (kind === "partner") s = s.replace(COMPANY_FORMS, "");
  if (kind === "employee" || kind === "partner") s = s.replace(HONORIFICS, "");
  return s;
}

export function matchName(kind: Kind, name: string, list: readonly Candidate[]): Candidate[] {
  const wanted = normalise(name, kind);
  if (wanted === "") return [];
  const exact = list.filter((c) => normalise(c.label, kind) === wanted || (c.num !== undefined && c.num === wanted));
  if (exact.length > 0) return exact;
  const loose = (c: Candidate) => (kind === "employee" ? normalise(c.label, kind).startsWith(wanted) : normalise(c.label, kind).includes(wanted));
  return list.filter(loose);
}
