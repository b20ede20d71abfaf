import type { PreviewStep, PreviewWarning } from "../core/domain/preview";
import type { ProcessStep, ProcessVersion } from "../core/domain/records";
import { cutToSlackLength, escapeMrkdwn, inlineMrkdwn, slackLength } from "../core/messages/mrkdwn";
import { hasDescriber, uncoveredInput } from "../preview/describe";
import { AGENT_DECIDE, isWriteStep, toolSummary } from "../freee/tools/summaries";
import { readConditions, readStepText } from "./read-words";
import { rowText, TABLE_HEAD } from "./rows";

/**
 * The approved Process in words, as the approver must see it before the approve button can be pressed:
 * every write step whole — its preview (before → after, names, warnings, problems) and whatever of
 * its input the preview does not put into words — and every read step with its input. Nothing is cut: a step
 * longer than a section continues in the next one, and when the plan does not fit a card (Block Kit: 50 blocks,
 * 3,000 characters per section) the whole plan goes into the modal that holds the approve button.
 */

/** Block Kit allows 3,000 characters per section; the margin absorbs counting differences (code points vs UTF-16). */
export const SECTION_MAX = 2900;
/** Card blocks that are not steps: header, summary, dropped steps, blocked notice, status, buttons, regeneration note. */
const CARD_RESERVED = 7;
const CARD_BLOCKS = 50;
/** Modal blocks that are not steps: summary and closing note. */
const MODAL_RESERVED = 2;
const MODAL_BLOCKS = 100;

export interface PlanSection {
  text: string;
  /** The steps this section shows; its 「入力 JSON」 button opens their raw input. */
  stepIds: string[];
  /** Only the first section of a step carries the button (its continuation does not repeat it). */
  button: boolean;
}

export type PlanLayout =
  /** Every step fits the card: [承認] on the card. */
  | { kind: "card"; sections: PlanSection[] }
  /** Only a modal holds it all: [全文を確認して承認] opens it, and its submit approves. */
  | { kind: "modal"; sections: PlanSection[] }
  /** Not even a modal can show it whole: it can only be rejected. */
  | { kind: "too_large" };

export const PlanMessages = {
  needsFullReview: "この実行ステップはカードに収まらないため、「全文を確認して承認」から全文を確認して承認してください。",
  blocked: "freee で確かめられない名前があるため、この実行ステップは承認できません。却下して、理由に正しい名前を書いてください。",
  noChanges: "どの書き込みも freee の現在の値と同じで、実行しても何も変わらないため、この実行ステップは承認できません。却下して、変更したい内容を理由に書いてください。",
  tooLarge: "この実行ステップは大きすぎて Slack で全文を確認できないため、承認できません。却下して、依頼を分けてください。",
  notPreviewed: "この実行ステップは freee での事前確認（プレビュー）が済んでいないため、承認できません。",
  undescribedFields: "プレビューで説明していない入力（そのまま書き込まれます）",
  rawInput: "入力（プレビューで説明していません。そのまま書き込まれます）",
} as const;

export function planLayout(version: ProcessVersion): PlanLayout {
  const warnings = version.preview?.warnings ?? [];
  const perStep =
    (version.steps ?? []).length === 0
      ? []
      : sortedSteps(version).flatMap((step) => chunk(stepText(step, previewOf(version, step.stepId), warnings.filter((w) => w.stepId === step.stepId))).map((text, i) => ({ text, stepIds: [step.stepId], button: i === 0 })));
  if (perStep.length <= CARD_BLOCKS - CARD_RESERVED) return { kind: "card", sections: perStep };
  if (perStep.length <= MODAL_BLOCKS - MODAL_RESERVED) return { kind: "modal", sections: perStep };
  const packed = pack(perStep);
  return packed.length <= MODAL_BLOCKS - MODAL_RESERVED ? { kind: "modal", sections: packed } : { kind: "too_large" };
}

/**
 * Why this version may not be approved from where the click came (undefined: it may). The card offers only
 * what this allows; the ingress checks it again, so a stale card or a forged payload cannot approve unseen.
 */
export function planApprovalBlocker(version: ProcessVersion, via: "card" | "full_plan"): string | undefined {
  if (version.steps === undefined) return PlanMessages.notPreviewed;
  if (version.preview === undefined) return PlanMessages.notPreviewed;
  if (version.preview.status === "blocked") return PlanMessages.blocked;
  if (version.preview.status === "no_changes") return PlanMessages.noChanges;
  const layout = planLayout(version);
  if (layout.kind === "too_large") return PlanMessages.tooLarge;
  if (layout.kind === "modal" && via === "card") return PlanMessages.needsFullReview;
  return undefined;
}

/** The places this plan can be seen whole, so approved from (stored on the version with its preview). */
export function approvableVia(version: ProcessVersion): ("card" | "full_plan")[] {
  return (["card", "full_plan"] as const).filter((via) => planApprovalBlocker(version, via) === undefined);
}

/** 「全 25 ステップ（書き込み 20 件、読み取り 5 件）」 */
export function planSummary(version: ProcessVersion): string {
  const steps = version.steps ?? [];
  const writes = steps.filter(isWriteStep).length;
  return `全 ${steps.length} ステップ（書き込み ${writes} 件、読み取り ${steps.length - writes} 件）`;
}

export function sortedSteps(version: ProcessVersion): ProcessStep[] {
  return [...(version.steps ?? [])].sort((a, b) => a.order - b.order);
}

function previewOf(version: ProcessVersion, stepId: string): PreviewStep | undefined {
  return version.preview?.steps.find((p) => p.stepId === stepId);
}

/** The mark of a warning line: the emoji itself, so every surface shows it (not a `:warning:` shortcode). */
export const WARNING_MARK = "⚠️";
export const BLOCKED_MARK = "⛔";

/**
 * One step in mrkdwn (may exceed a section: `chunk` splits it): a write as the rows of the change table with its
 * warnings, each on its own line; a read as what it reads, in words. No tool name, step id or JSON, except the
 * input of a write the preview could not put into words (shown as given, and said to be).
 */
export function stepText(step: ProcessStep, preview: PreviewStep | undefined, warnings: readonly PreviewWarning[] = []): string {
  if (step.tool === AGENT_DECIDE) return agentDecideText(step);
  const words = isWriteStep(step) ? undefined : readStepText(step);
  if (words !== undefined) return words;
  const tool = toolSummary(step.tool);
  if (!isWriteStep(step)) {
    const conditions = readConditions(step);
    const what = tool?.method === "GET" ? "freee のデータを読み取ります" : sentence(tool?.description ?? step.tool);
    return `*${step.order}. ${inlineMrkdwn(what)}*（読み取り）${conditions.length === 0 ? "" : `\n${inlineMrkdwn(conditions.join("、"))}`}`;
  }
  const lines = [`*${step.order}. ${inlineMrkdwn(preview?.title ?? sentence(tool?.description ?? step.tool))}*（書き込み）`];
  if (preview === undefined) {
    lines.push(`入力: ${code(step.toolInput)}`);
    return lines.join("\n");
  }
  const rows = preview.rows ?? [];
  if (rows.length === 0) lines.push(inlineMrkdwn(preview.summary));
  else lines.push(`_${TABLE_HEAD}_`, ...rows.map((r) => inlineMrkdwn(rowText(r, preview.current))));
  // A generic create's details restate its changes field by field: the table's rows hold them.
  const restated = tool?.method === "POST" && rows.length > 0;
  if (!restated) for (const detail of preview.details) lines.push(`• ${inlineMrkdwn(detail)}`);
  if (preview.current === "unreadable" && preview.currentNote !== undefined) lines.push(`${WARNING_MARK} ${inlineMrkdwn(preview.currentNote)}`);
  for (const r of preview.resolved) lines.push(`名前: 「${inlineMrkdwn(r.name)}」→ ${inlineMrkdwn(r.label)}（ID ${r.id}）`);
  for (const w of warnings) lines.push(`${WARNING_MARK} ${inlineMrkdwn(w.message)}`);
  for (const w of preview.warnings) lines.push(`${WARNING_MARK} ${inlineMrkdwn(w)}`);
  for (const p of preview.problems) lines.push(`${BLOCKED_MARK} ${inlineMrkdwn(p.message)}`);
  const rest = uncoveredInput(step.tool, step.toolInput);
  // Shown as given, and said to be: the preview did not put these fields into words.
  if (rest !== undefined) lines.push(`${hasDescriber(step.tool) ? PlanMessages.undescribedFields : PlanMessages.rawInput}: ${code(rest)}`);
  return lines.join("\n");
}

function agentDecideText(step: ProcessStep): string {
  const scope = step.readScope;
  const instruction = typeof step.toolInput.instruction === "string" ? step.toolInput.instruction : JSON.stringify(step.toolInput);
  const lines = [`*${step.order}. エージェントの判断*（読み取りのみ）`, inlineMrkdwn(instruction)];
  if (scope !== undefined) {
    const paths = scope.pathPrefixes === undefined || scope.pathPrefixes.length === 0 ? "" : `（freee の ${scope.pathPrefixes.map((p) => inlineMrkdwn(p)).join("、")}）`;
    lines.push(`使える読み取り: ${scope.tools.map((t) => inlineMrkdwn(sentence(toolSummary(t)?.description ?? t))).join("、")}${paths}`);
  }
  return lines.join("\n");
}

function code(value: unknown): string {
  // A backtick inside would end the inline code early: shown as its look-alike.
  return `\`${escapeMrkdwn(JSON.stringify(value)).replace(/`/g, "ˋ")}\``;
}

function sentence(description: string): string {
  return description.replace(/（[^）]*API）。?.*$/, "").replace(/。$/, "");
}

/** Split a text into sections of at most SECTION_MAX units (slackLength), at line ends where possible. */
export function chunk(text: string, max = SECTION_MAX): string[] {
  const out: string[] = [];
  let current = "";
  const flush = () => {
    if (current !== "") out.push(current);
    current = "";
  };
  for (const line of text.split("\n")) {
    const pieces = slackLength(line) <= max ? [line] : splitChars(line, max);
    for (const piece of pieces) {
      const candidate = current === "" ? piece : `${current}\n${piece}`;
      if (slackLength(candidate) <= max) current = candidate;
      else {
        flush();
        current = piece;
      }
    }
  }
  flush();
  return out.length === 0 ? [""] : out;
}

/** Pieces of at most `max` units; a surrogate pair (an emoji) is never split between two. */
function splitChars(line: string, max: number): string[] {
  const out: string[] = [];
  for (let rest = line; rest !== ""; ) {
    // A limit below one emoji's two units still makes progress (never at the limits used here).
    const piece = cutToSlackLength(rest, max) || String.fromCodePoint(rest.codePointAt(0)!);
    out.push(piece);
    rest = rest.slice(piece.length);
  }
  return out;
}

/** Several steps per section, for a plan too long for one section per step even in a modal. */
function pack(sections: readonly PlanSection[]): PlanSection[] {
  const out: PlanSection[] = [];
  for (const s of sections) {
    const last = out.at(-1);
    if (last !== undefined && slackLength(last.text) + 2 + slackLength(s.text) <= SECTION_MAX) {
      last.text = `${last.text}\n\n${s.text}`;
      for (const id of s.stepIds) if (!last.stepIds.includes(id)) last.stepIds.push(id);
    } else {
      out.push({ text: s.text, stepIds: [...s.stepIds], button: true });
    }
  }
  return out;
}
