import { L1_SYSTEM_PROMPT } from "../../../lib/model/l1-task";
import { L2_SYSTEM_PROMPT } from "../../../lib/model/l2-prompt";
import { L3_SYSTEM_PROMPT } from "../../../lib/model/l3-process";
import { AGENT_DECIDE } from "../../../lib/freee/tools/summaries";
import { safeParse } from "./autoplay";
import { messageReply, type ScriptedReply } from "./messages";
import { planLines, plannedSteps, scenarioOf, type ScriptedAttachment } from "./scripted-plans";

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
  const man = /(\d+(?:\.\d+)?)\s*万円/.exec(request);
  const yen = /([\d,]+)\s*円/.exec(request);
  const amount = man ? Math.round(Number(man[1]) * 10_000) : yen ? Number(yen[1]!.replace(/,/g, "")) : undefined;
  return { domain: hr ? "hr" : "accounting", ...(amount === undefined || !Number.isFinite(amount) ? {} : { amount }) };
}

/** The person a request names with さん (「来月から山田さんの…」 → 山田): the kanji / katakana run before it. */
export function employeeNameOf(request: string): string | undefined {
  return /([一-龯々ァ-ヶー]+)\s*(?:さん|様)/.exec(request)?.[1];
}

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

function textFor(body: Record<string, unknown>): string {
  const layer = layerOf(body);
  const user = userText(body);
  if (layer === "L1") {
    const request = sectionOf(user, "message") ?? user;
    const reply = notARequestReply(request);
    if (reply !== undefined) return JSON.stringify({ kind: "not_a_request", reply, task: null });
    const { domain, amount } = intentOf(request);
    const parameters: { name: string; value: string | number }[] = [];
    const who = employeeNameOf(request);
    if (who !== undefined) parameters.push({ name: "employee_name", value: who });
    if (amount !== undefined) parameters.push({ name: domain === "hr" ? "new_basic_pay" : "amount", value: amount });
    const task = { title: request.slice(0, 40), intent: `${request.slice(0, 200)}（スクリプトのモデルによる解析）`, domain, parameters, missingInformation: [] };
    return JSON.stringify({ kind: "request", reply: null, task });
  }
  if (layer === "L2") {
    const task = asObject(sectionOf(user, "task"));
    const reason = sectionOf(user, "rejection_reason");
    const scenario = scenarioOf(String(task?.intent ?? ""));
    const lines = scenario !== undefined ? planLines(scenario) :
      ((task?.domain as string | undefined) ?? "hr") === "hr"
        ? ["目的: 依頼に沿って従業員の基本給を変更する。", "1. 対象年月に在籍する従業員の一覧を取得する。", "2. 依頼の従業員（名前は承認の前に freee の従業員に照合する）の基本給を、対象年月から新しい金額に更新する。"]
        : ["目的: 依頼に沿って会計の取引を確認する。", "1. 勘定科目の一覧を取得する。", "2. 取引の一覧を取得して内容を確認する。"];
    if (reason !== undefined) lines.push(`（却下理由「${reason.trim().slice(0, 100)}」を反映しました）`);
    return lines.join("\n");
  }
  if (layer === "L3") {
    const task = asObject(sectionOf(user, "task"));
    const params = (task?.parameters ?? {}) as Record<string, unknown>;
    const { year, month } = nextMonth(sectionOf(user, "today"));
    const scenario = scenarioOf(String(task?.intent ?? ""));
    if (scenario !== undefined) {
      const today = sectionOf(user, "today")?.trim() ?? jstToday();
      const attachments = JSON.parse(sectionOf(user, "attachments") ?? "[]") as ScriptedAttachment[];
      return JSON.stringify({ steps: plannedSteps(scenario, String(task?.intent ?? ""), today, typeof params.amount === "number" ? params.amount : undefined, attachments) });
    }
    const amount = typeof params.new_basic_pay === "number" ? params.new_basic_pay : 300_000;
    const name = typeof params.employee_name === "string" ? params.employee_name : undefined;
    const step = (order: number, tool: string, effect: "read" | "write", input: Record<string, unknown>, nameRefs: { field: string; name: string }[] = []) => ({ stepId: `s${order}`, order, tool, effect, toolInput: JSON.stringify(input), nameRefs });
    // As L3's prompt asks of the real model: the employee the request names is not guessed but left to the
    // preview, which resolves the name against freee (the scripted company) to the id the write will use.
    const steps =
      (task?.domain ?? "hr") !== "hr"
        ? [step(1, "freee_accounting_list_account_items", "read", {}), step(2, "freee_accounting_list_deals", "read", { limit: 20 })]
        : name === undefined
          ? [step(1, "freee_hr_list_employees", "read", { year, month }), step(2, AGENT_DECIDE, "read", { instruction: "依頼に対象の従業員の名前がないため、一覧を示して確認を求める", tools: ["freee_hr_get_employee"] })]
          : [
              step(1, "freee_hr_list_employees", "read", { year, month }),
              step(2, "freee_hr_update_basic_pay_rule", "write", { year, month, pay_calc_type: "monthly", pay_amount: amount }, [{ field: "employee_id", name }]),
            ];
    return JSON.stringify({ steps });
  }
  return "（スクリプトのモデル）この依頼には応答できません。";
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
