import { approve, reject } from "../../lib/actions";
import type { VersionKind } from "../../lib/domain/records";
import { jsonReply, messageReply, type ScriptedReply } from "../support/fake-anthropic-messages";
import type { PipelineHarness } from "../support/local-sfn";

/** L1 structured output (parameters as entries, the structured-output shape). */
export const L1_REPLY = {
  title: "山田さんの基本給変更",
  intent: "山田さんの基本給を 2026 年 12 月から月額 30 万円に変更する。",
  domain: "hr",
  parameters: [
    { name: "employee_name", value: "山田" },
    { name: "new_basic_pay", value: 300000 },
  ],
  missingInformation: [],
};

export const PROMPT_TEXT = "目的: 山田さんの基本給を 2026 年 12 月分から月額 300,000 円に変更する。\n1. 従業員一覧を取得する。\n2. 基本給を更新する。";

const wireStep = (order: number, tool: string, toolInput: Record<string, unknown>) => ({ stepId: `s${order}`, order, tool, toolInput: JSON.stringify(toolInput) });
export const L3_STEPS = [
  wireStep(1, "freee_hr_list_employees", { year: 2026, month: 12 }),
  wireStep(2, "agent_decide", { instruction: "一覧から山田さんの従業員 ID を特定する" }),
];

export const l1Ok = (): ScriptedReply => jsonReply(L1_REPLY);
export const l2Ok = (text = PROMPT_TEXT): ScriptedReply => messageReply(text);
export const l3Ok = (): ScriptedReply => jsonReply({ steps: L3_STEPS });

/** Wait for the approval of `kind` vN to be open, then decide it as the ingress does (lib/actions). */
export async function decide(h: PipelineHarness, taskId: string, kind: VersionKind, version: number, decision: "approve" | { reject: string }) {
  const stateName = kind === "prompt" ? "AwaitPromptApproval" : "AwaitProcessApproval";
  await h.local.waitFor(
    () => h.local.pendingTokens().find((p) => p.executionName === taskId && p.stateName === stateName && (p.payload as { version?: number }).version === version),
    10_000,
    `${kind} v${version} approval`,
  );
  const target = { taskId, kind, version };
  const result = decision === "approve" ? await approve(h.actions, h.actor, target) : await reject(h.actions, h.actor, target, decision.reject);
  if (result.outcome !== "applied") throw new Error(`decision on ${kind} v${version} was ${result.outcome}: ${JSON.stringify(result)}`);
}

/** The ExecutionRun execution the pipeline started for run N, once it exists. */
export function runExecution(h: PipelineHarness, taskId: string, executionNo = 1) {
  return h.local.waitFor(() => h.local.execution("ExecutionRun", `${taskId}-e${executionNo}`), 10_000, `ExecutionRun ${executionNo}`);
}

/** Every text Slack was sent (postMessage / update) for this run, in order. */
export function slackTexts(h: PipelineHarness): string[] {
  return h.slack.calls.filter((c) => c.method === "chat.postMessage" || c.method === "chat.update").map((c) => JSON.stringify(c.body));
}
