import { describe, expect, it } from "vitest";
import { SlackMessages } from "../../lib/core/messages/ja";
import { renderExecutionCard } from "../../lib/ingress/cards";
import { buildHomeView, type HomeData } from "../../lib/ingress/home";
import { webAdminUrlFromEnv } from "../../wiring/web-admin-url";
import { DEFAULT_APPROVAL_POLICY } from "../../lib/core/domain/approval-policy";

/** Slack links to the web admin: App Home, and the freee connection failure's second sentence on a card. */
const at = "2026-11-05T01:00:00.000Z";
const task = { taskId: "T0001-C1-1", thread: { teamId: "T0001", channelId: "C1", messageTs: "1.000001" }, requesterId: "UREQ", requestText: "経費", status: "failed" as const, currentPromptVersion: 1, currentProcessVersion: 1, approvedProcessVersion: 1, executionCount: 1, cards: {}, pipelineExecutionName: "p", createdAt: at, updatedAt: at };
const execution = { taskId: task.taskId, executionNo: 1, executionId: "T0001-C1-1-e1", processVersion: 1, status: "failed" as const, startedBy: "UREQ", errorName: "AuthError", createdAt: at, updatedAt: at };
const history = { task, prompts: [], processes: [], executions: [execution], audit: [] };
const text = (blocks: unknown) => JSON.stringify(blocks);

describe("links to the web admin", () => {
  it("the URL: WEB_ADMIN_URL, else the web Lambda's URL + /admin, else none", () => {
    expect(webAdminUrlFromEnv({ WEB_ADMIN_URL: "https://admin.example/admin/" })).toBe("https://admin.example/admin");
    expect(webAdminUrlFromEnv({ FREEE_CONNECT_BASE_URL: "https://web.example/" })).toBe("https://web.example/admin");
    expect(webAdminUrlFromEnv({})).toBeUndefined();
  });

  it("an Execution card failed by the freee connection links 設定 on the line under the message", () => {
    const card = renderExecutionCard(history as never, 1, { maxReruns: 3 }, { adminUrl: "https://web.example/admin" });
    expect(text(card.blocks)).toContain(SlackMessages.freeeConnectionFailed);
    expect(text(card.blocks)).toContain("<https://web.example/admin/settings|管理画面の設定>");
    // Another failure, or no URL: no link.
    expect(text(renderExecutionCard({ ...history, executions: [{ ...execution, errorName: "AgentRunFailedError" }] } as never, 1, { maxReruns: 3 }, { adminUrl: "https://web.example/admin" }).blocks)).not.toContain("/admin/settings");
    expect(text(renderExecutionCard(history as never, 1, { maxReruns: 3 }).blocks)).not.toContain("/admin/settings");
  });

  it("App Home links to the web admin", () => {
    const data = { viewerIsAdmin: false, freee: { status: "connected" }, adminUserIds: [], approvalPolicy: DEFAULT_APPROVAL_POLICY, allowedExternalTeamIds: [], recentTasks: [], ledger: { since: at, until: at, tasks: [], byOutcome: { completed: 0, failed: 0, timed_out: 0, cancelled: 0, limit_reached: 0, expired: 0, not_a_request: 0, in_progress: 0 }, failuresByClass: [], refusalsByReason: [], runsNotCompleted: { IncompleteRunError: 0, AuthError: 0, FreeeCompanyChangedError: 0, WriteOutcomeUnknownError: 0 } }, adminUrl: "https://web.example/admin" } as unknown as HomeData;
    expect(text(buildHomeView({ kind: "ok", data }).blocks)).toContain("<https://web.example/admin|管理画面を開く>");
  });
});

describe("タスク詳細's rule column", () => {
  it("says which rule of the approval policy a Process version was judged by, and who approved under it", async () => {
    const { ruleText } = await import("../../lib/web-admin/pages/task-trail");
    const v = {
      kind: "process",
      approvalRule: { writes: true, writeDomains: ["hr"], readDomains: [], selfApproval: false, approverUserIds: ["UAPPROVER1"], approverUsergroupIds: [], required: 2, twoBecause: ["amount"], autoApproved: false, snapshotAt: at },
      approvals: [{ actorId: "UAPPROVER1", rule: "hr", at }],
    };
    expect(ruleText(v as never)).toBe("必要な承認 2 人（金額のため） / 依頼者本人の承認不可 / 承認者: UAPPROVER1 / UAPPROVER1 が 2026-11-05 10:00 に承認（hr）");
    expect(ruleText({ kind: "process" } as never)).toBe("—");
  });
});
