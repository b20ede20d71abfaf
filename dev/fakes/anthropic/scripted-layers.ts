import { L1_SYSTEM_PROMPT } from "../../../lib/model/l1-task";
import { L2_SYSTEM_PROMPT } from "../../../lib/model/l2-prompt";
import { L3_SYSTEM_PROMPT } from "../../../lib/model/l3-process";
import { AGENT_DECIDE } from "../../../lib/freee/tools/summaries";
import { safeParse } from "./autoplay";
import { messageReply, type ScriptedReply } from "./messages";
import { planLines, plannedSteps, scenarioOf, type ScriptedAttachment } from "./scripted-plans";
import { amountIn, applyToDeals, applyToPay, dealsTarget, monthIn, nameIn, payTarget, periodIn, readDealsTarget, readPayTarget, readReason, yenWords, type PayValues, type Period } from "./scripted-values";

/**
 * The fake's Messages responder for the sandbox: L1–L3 answer from the request text, recognised by their
 * system prompt. Deterministic and offline; the sandbox page labels it as scripted.
 */
type Layer = "L1" | "L2" | "L3";

export function layerOf(body: Record<string, unknown>): Layer | undefined {
  const system = Array.isArray(body.system) ? (body.system as { text?: string }[]).map((b) => b.text ?? "").join("") : String(body.system ?? "");
  const head = (prompt: string) => prompt.slice(0, 60);
  if (system.startsWith(head(L1_SYSTEM_PROMPT))) return "L1";
  if (system.startsWith(head(L2_SYSTEM_PROMPT))) return "L2";
  if (system.startsWith(head(L3_SYSTEM_PROMPT))) return "L3";
  return undefined;
}

function userText(body: Record<string, unknown>): string {
  const messages = (body.messages ?? []) as { role: string; content: string | { type: string; text?: string }[] }[];
  return messages
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((c) => c.text ?? "").join("")))
    .join("\n");
}

function sectionOf(text: string, tag: string): string | undefined {
  return new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(text)?.[1];
}

/** What the request is about, read from its words: the sandbox company's HR or its books. */
function intentOf(request: string): { domain: "hr" | "accounting"; amount?: number } {
  const scenario = scenarioOf(request);
  const hr = scenario === undefined ? /給|従業員|勤怠|社員|人事|さん/.test(request) : scenario === "attendance";
  const amount = amountIn(request);
  return { domain: hr ? "hr" : "accounting", ...(amount === undefined ? {} : { amount }) };
}

/** The person a request names with さん (「来月から山田さんの…」 → 山田). */
export const employeeNameOf = nameIn;

/** Words that ask for work on freee (or name its data): without any, the scripted L1 reads no request. */
const WORK_WORDS = /給|従業員|勤怠|社員|人事|取引|経費|仕訳|勘定|請求|支払|口座|部門|品目|登録|変更|更新|作成|削除|追加|修正|見せて|一覧|さん|円/;
const GREETING = /^(こんにちは|こんばんは|おはよう|はじめまして|よろしく|ありがとう|お疲れ|hello|hi\b|hey\b)/i;

/** The scripted L1's reply to a greeting or a question that asks for no work on freee; undefined for a request. */
function notARequestReply(request: string): string | undefined {
  const text = request.trim();
  if (scenarioOf(text) !== undefined || WORK_WORDS.test(text)) return undefined;
  const how = "freee で行いたいこと（例: 「来月から山田さんの基本給を30万円に変更して」）を書いて送ってください。";
  return GREETING.test(text) ? `こんにちは。${how}` : `freee の会計・人事労務の操作をお手伝いします。${how}`;
}

/** The month after `today` (a JST calendar date, YYYY-MM-DD), read from the date itself: no time zone to slip on. */
export function nextMonth(todayIso: string | undefined): { year: number; month: number } {
  const [y, m] = (todayIso?.trim() ?? jstToday()).split("-").map(Number) as [number, number];
  return m === 12 ? { year: y + 1, month: 1 } : { year: y, month: m + 1 };
}

function jstToday(): string {
  return new Date(Date.now() + 9 * 3600_000).toISOString().slice(0, 10);
}

/** The deals read's page size: freee's default, said on the card. */
const DEALS_LIMIT = 20;

function textFor(body: Record<string, unknown>): string {
  const layer = layerOf(body);
  const user = userText(body);
  const today = sectionOf(user, "today")?.trim() ?? jstToday();
  if (layer === "L1") {
    const request = sectionOf(user, "message") ?? user;
    const reply = notARequestReply(request);
    if (reply !== undefined) return JSON.stringify({ kind: "not_a_request", reply, task: null });
    const { domain, amount } = intentOf(request);
    const parameters: { name: string; value: string | number }[] = [];
    const who = employeeNameOf(request);
    if (who !== undefined) parameters.push({ name: "employee_name", value: who });
    if (amount !== undefined) parameters.push({ name: domain === "hr" ? "new_basic_pay" : "amount", value: amount });
    // The period the request names, as exact values (the real L1 is asked for the same).
    const month = monthIn(request, today);
    const period = periodIn(request, today);
    if (domain === "hr" && month !== undefined) parameters.push({ name: "effective_year", value: month.year }, { name: "effective_month", value: month.month });
    if (domain === "accounting" && period !== undefined) parameters.push({ name: "period_start", value: period.start }, { name: "period_end", value: period.end });
    const task = { title: request.slice(0, 40), intent: `${request.slice(0, 200)}（スクリプトのモデルによる解析）`, domain, parameters, missingInformation: [] };
    return JSON.stringify({ kind: "request", reply: null, task });
  }
  const task = asObject(sectionOf(user, "task"));
  const params = paramsOf(task);
  const scenario = scenarioOf(String(task?.intent ?? ""));
  const domain = (task?.domain as string | undefined) ?? "hr";
  const reasonText = sectionOf(user, "rejection_reason")?.trim();
  const reason = reasonText === undefined ? undefined : readReason(reasonText, today);
  if (layer === "L2") {
    const previous = sectionOf(user, "previous_prompt");
    if (scenario !== undefined) return [...(reasonText === undefined ? [] : [notApplied(reasonText)]), ...planLines(scenario)].join("\n");
    if (domain === "hr") {
      const base = { ...payFromTask(params, today), ...(previous === undefined ? {} : readPayTarget(previous)) };
      const { values, applied } = reason === undefined ? { values: base, applied: [] } : applyToPay(base, reason);
      return [...correction(reasonText, applied), ...payPlan(values)].join("\n");
    }
    const base = previous === undefined ? periodFromTask(params) : readDealsTarget(previous)?.period;
    const { period, applied } = reason === undefined ? { period: base, applied: [] } : applyToDeals(base, reason);
    return [...correction(reasonText, applied), ...dealsPlan(period)].join("\n");
  }
  if (layer === "L3") {
    const approved = sectionOf(user, "approved_prompt") ?? "";
    // A rejected version of the steps is the base a second rejection changes (its values, not the plan's).
    const previousSteps = ((asObject(sectionOf(user, "previous_steps"))?.steps ?? []) as { tool: string; toolInput: Record<string, unknown>; nameRefs?: { name: string }[] }[]);
    if (scenario !== undefined) {
      const attachments = JSON.parse(sectionOf(user, "attachments") ?? "[]") as ScriptedAttachment[];
      return JSON.stringify({ steps: plannedSteps(scenario, String(task?.intent ?? ""), today, typeof params.amount === "number" ? params.amount : undefined, attachments) });
    }
    const step = (order: number, tool: string, effect: "read" | "write", input: Record<string, unknown>, nameRefs: { field: string; name: string }[] = []) => ({ stepId: `s${order}`, order, tool, effect, toolInput: JSON.stringify(input), nameRefs });
    if (domain !== "hr") {
      // The approved plan's period (else the task's), changed by a rejection of the steps when it names one.
      const deals = readDealsTarget(approved);
      const before = previousSteps.find((p) => p.tool === "freee_accounting_list_deals")?.toolInput;
      const base = before !== undefined ? periodOfInput(before) : deals === undefined ? periodFromTask(params) : deals.period;
      const { period } = reason === undefined ? { period: base } : applyToDeals(base, reason);
      const input = { ...(period === undefined ? {} : { start_issue_date: period.start, end_issue_date: period.end }), limit: DEALS_LIMIT };
      return JSON.stringify({ steps: [step(1, "freee_accounting_list_deals", "read", input)] });
    }
    const base = { ...payFromTask(params, today), ...readPayTarget(approved), ...payOfSteps(previousSteps) };
    const { values } = reason === undefined ? { values: base } : applyToPay(base, reason);
    const { year, month, amount, name } = values;
    // As L3's prompt asks of the real model: the employee the request names is not guessed but left to the
    // preview, which resolves the name against freee (the scripted company) to the id the write will use.
    const steps =
      name === undefined
        ? [step(1, "freee_hr_list_employees", "read", { year, month }), step(2, AGENT_DECIDE, "read", { instruction: "依頼に対象の従業員の名前がないため、一覧を示して確認を求める", tools: ["freee_hr_get_employee"] })]
        : [
            step(1, "freee_hr_list_employees", "read", { year, month }),
            step(2, "freee_hr_update_basic_pay_rule", "write", { year, month, pay_calc_type: "monthly", pay_amount: amount }, [{ field: "employee_id", name }]),
          ];
    return JSON.stringify({ steps });
  }
  return "（スクリプトのモデル）この依頼には応答できません。";
}

function paramsOf(task: Record<string, unknown> | undefined): Record<string, unknown> {
  // L1's parameters are a list of {name, value}; the stored TaskSpec holds them as a record.
  const raw = task?.parameters;
  if (Array.isArray(raw)) return Object.fromEntries((raw as { name: string; value: unknown }[]).map((p) => [p.name, p.value]));
  return (raw ?? {}) as Record<string, unknown>;
}

function payFromTask(params: Record<string, unknown>, today: string): PayValues {
  const next = nextMonth(today);
  const year = typeof params.effective_year === "number" ? params.effective_year : next.year;
  const month = typeof params.effective_month === "number" ? params.effective_month : next.month;
  const amount = typeof params.new_basic_pay === "number" ? params.new_basic_pay : 300_000;
  const name = typeof params.employee_name === "string" ? params.employee_name : undefined;
  return { year, month, amount, ...(name === undefined ? {} : { name }) };
}

function periodFromTask(params: Record<string, unknown>): Period | undefined {
  const [start, end] = [params.period_start, params.period_end];
  return typeof start === "string" && typeof end === "string" ? { start, end } : undefined;
}

function periodOfInput(input: Record<string, unknown>): Period | undefined {
  const [start, end] = [input.start_issue_date, input.end_issue_date];
  return typeof start === "string" && typeof end === "string" ? { start, end } : undefined;
}

function payOfSteps(steps: readonly { tool: string; toolInput: Record<string, unknown>; nameRefs?: { name: string }[] }[]): Partial<PayValues> {
  const write = steps.find((s) => s.tool === "freee_hr_update_basic_pay_rule");
  if (write === undefined) return {};
  const { year, month, pay_amount: amount } = write.toolInput;
  const name = write.nameRefs?.[0]?.name;
  return {
    ...(typeof year === "number" ? { year } : {}),
    ...(typeof month === "number" ? { month } : {}),
    ...(typeof amount === "number" ? { amount } : {}),
    ...(name === undefined ? {} : { name }),
  };
}

function payPlan(v: PayValues): string[] {
  return [
    "目的: 依頼に沿って従業員の基本給を変更する。",
    payTarget(v),
    "手順:",
    `1. ${v.year}年${v.month}月に在籍する従業員の一覧を取得する。`,
    v.name === undefined
      ? "2. 依頼に従業員の名前がないため、一覧を示して対象の従業員を確認する（変更はしない）。"
      : `2. ${v.name}（名前は承認の前に freee の従業員に照合する）の基本給を、${v.year}年${v.month}月から ${yenWords(v.amount)}に更新する。`,
    `変更内容: ${v.name === undefined ? "変更なし（参照のみ）" : `基本給 → ${yenWords(v.amount)}（${v.year}年${v.month}月から）`}`,
    "確認事項: なし",
  ];
}

function dealsPlan(period: Period | undefined): string[] {
  return [
    "目的: 依頼に沿って会計の取引を確認する。",
    dealsTarget(period, DEALS_LIMIT),
    "手順:",
    `1. ${period === undefined ? "" : `発生日が ${period.start} 〜 ${period.end} の`}取引の一覧を、最大 ${DEALS_LIMIT} 件取得する。`,
    "変更内容: 変更なし（参照のみ）",
    `確認事項: ${period === undefined ? "依頼に期間の指定がないため、期間で絞り込まずに取得します。" : "なし"}`,
  ];
}

/** What a regenerated plan says it changed: only what it did change, and that the rest of the reason was not read. */
function correction(reason: string | undefined, applied: readonly string[]): string[] {
  if (reason === undefined) return [];
  if (applied.length === 0) return [notApplied(reason)];
  return [`修正点: 却下理由から${applied.join("、")}しました。スクリプトのモデルが読み取るのは年月・期間・名前・金額だけで、それ以外の指摘は反映していません。`];
}

function notApplied(reason: string): string {
  return `修正点: スクリプトのモデルは却下理由「${reason.slice(0, 100)}」から反映できる値（年月・期間・名前・金額）を読み取れなかったため、内容は前の版と同じです。`;
}

export function scriptedLayers(body: Record<string, unknown>): ScriptedReply {
  const text = textFor(body);
  const user = userText(body);
  return messageReply({ texts: [text], model: String(body.model ?? "scripted"), usage: { input_tokens: Math.ceil(user.length / 2), output_tokens: Math.ceil(text.length / 2) } });
}

function asObject(text: string | undefined): Record<string, unknown> | undefined {
  const parsed = text === undefined ? undefined : safeParse(text);
  return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
}
