import type { BetaManagedAgentsSessionEvent } from "@anthropic-ai/sdk/resources/beta/sessions/events";
import { describe, expect, it } from "vitest";
import { interpretEvents, MAX_TOOL_ERRORS } from "../../../lib/model/agent/session-events";
import { buildTaskMessage } from "../../../lib/model/agent/agent-prompt";
import { loadAgentConfig } from "../../../lib/model/agent/agent-config";
import type { ExecutionProgress } from "../../../lib/core/domain/records";
import { FatalConfigError } from "../../../lib/core/errors/taxonomy";

const SENT = "2026-11-30T08:00:00.000Z";
let n = 0;
const at = (s: number) => new Date(Date.parse(SENT) + s * 1000).toISOString();
const msg = (text: string, s = 1) =>
  ({ id: `e${++n}`, type: "agent.message", processed_at: at(s), content: [{ type: "text", text }] }) as BetaManagedAgentsSessionEvent;
const use = (name: string, s = 1) =>
  ({ id: `e${++n}`, type: "agent.mcp_tool_use", processed_at: at(s), name, input: {}, mcp_server_name: "freee" }) as BetaManagedAgentsSessionEvent;
const errResult = (useId: string, text: string, s = 1) =>
  ({ id: `e${++n}`, type: "agent.mcp_tool_result", processed_at: at(s), mcp_tool_use_id: useId, is_error: true, content: [{ type: "text", text }] }) as BetaManagedAgentsSessionEvent;
const progress0: ExecutionProgress = { seenEventIds: [], completedSteps: 0, toolErrors: [], stepsSentAt: SENT };

describe("interpretEvents (card progress)", () => {
  it("follows step markers: a new marker closes the previous step; repeats do not count", () => {
    const r = interpretEvents([msg("[step:s1] 開始"), msg("[step:s1] まだ s1"), msg("[step:s2]"), msg("[step:s3]")], progress0, { stepsSentAt: SENT });
    expect(r.progress).toMatchObject({ currentStepId: "s3", completedSteps: 2 });
    expect(r.completed).toBe(false);
    expect(r.lastAgentText).toBe("[step:s3]");
  });

  it("keeps the newest tool errors only, with messages cut to a card-sized length", () => {
    const events: BetaManagedAgentsSessionEvent[] = [];
    for (let i = 0; i < MAX_TOOL_ERRORS + 5; i++) {
      const u = use(`tool_${i}`);
      events.push(u, errResult(u.id, "x".repeat(1000)));
    }
    const r = interpretEvents(events, progress0, { stepsSentAt: SENT });
    expect(r.progress.toolErrors).toHaveLength(MAX_TOOL_ERRORS);
    expect(r.progress.toolErrors.at(-1)?.tool).toBe(`tool_${MAX_TOOL_ERRORS + 4}`);
    expect(r.progress.toolErrors[0]?.message.length).toBe(300);
  });

  it("ignores events it has seen and moves lastEventAt forward only", () => {
    const a = msg("[step:s1]", 5);
    const first = interpretEvents([a], progress0, { stepsSentAt: SENT });
    const again = interpretEvents([a, msg("[step:s2]", 3)], first.progress, { stepsSentAt: SENT });
    expect(again.progress.seenEventIds).toHaveLength(2);
    expect(again.progress.lastEventAt).toBe(at(5));
    expect(again.progress.completedSteps).toBe(1);
  });

  it("stops at the completion: later events in the batch are left for nobody", () => {
    const idle = { id: `e${++n}`, type: "session.status_idle", processed_at: at(2), stop_reason: { type: "end_turn" }, stop_details: null } as BetaManagedAgentsSessionEvent;
    const r = interpretEvents([msg("完了"), idle, msg("after")], progress0, { stepsSentAt: SENT });
    expect(r.completed).toBe(true);
    expect(r.lastAgentText).toBe("完了");
  });
});

describe("task message and settings", () => {
  it("lists the approved steps in order, agent_decide explained, in Japanese", () => {
    const text = buildTaskMessage([
      { stepId: "b", order: 2, tool: "agent_decide", toolInput: { instruction: "誰を更新するか" }, readScope: { tools: ["freee_api_get"], pathPrefixes: ["/hr/api/v1/employees"] } },
      { stepId: "a", order: 1, tool: "freee_hr_list_employees", toolInput: { year: 2026, month: 11 } },
      { stepId: "c", order: 3, tool: "freee_hr_update_work_record", toolInput: { employee_id: 1, date: "2026-11-30" } },
    ]);
    expect(text.indexOf("[step:a]")).toBeLessThan(text.indexOf("[step:b]"));
    expect(text).toContain("全 3 件");
    expect(text).toContain("agent_decide（読み取りで判断: freee_api_get; パス /hr/api/v1/employees）");
    expect(text).toContain("ツール: freee_hr_update_work_record（書き込み）");
    expect(text).toContain('"誰を更新するか"');
  });

  it("fails loudly without a usable MCP_SERVER_URL; bearer TTL follows the run timeout", () => {
    expect(() => loadAgentConfig({})).toThrow(FatalConfigError);
    expect(() => loadAgentConfig({ MCP_SERVER_URL: "not a url" })).toThrow(FatalConfigError);
    expect(() => loadAgentConfig({ MCP_SERVER_URL: "ftp://x" })).toThrow(FatalConfigError);
    const config = loadAgentConfig({ MCP_SERVER_URL: "https://h.example/mcp", RUN_TIMEOUT_SECONDS: "100" });
    expect(config).toMatchObject({ mcpHost: "h.example", bearerTtlSeconds: 400 });
    expect(loadAgentConfig({ MCP_SERVER_URL: "https://other.example/mcp" }).fingerprint).not.toBe(config.fingerprint);
  });
});

describe("interpretEvents: per-step progress for the Execution card", () => {
  const okResult = (useId: string, text: string, s = 1) =>
    ({ id: `e${++n}`, type: "agent.mcp_tool_result", processed_at: at(s), mcp_tool_use_id: useId, is_error: false, content: [{ type: "text", text }] }) as BetaManagedAgentsSessionEvent;
  const idle = (s = 5) => ({ id: `e${++n}`, type: "session.status_idle", processed_at: at(s), stop_reason: { type: "end_turn" } }) as BetaManagedAgentsSessionEvent;
  const employees = JSON.stringify({ employees: [{ id: 7, num: "A1", display_name: "山田 太郎", entry_date: "2020-04-01", birth_date: "1990-01-01" }, { id: 8, display_name: "佐藤 花子" }] });

  it("a finished tool call is no longer the running tool; its step is done with a one-line result and the read's table", () => {
    const u = use("freee_hr_list_employees");
    const r = interpretEvents([msg("[step:s1] 一覧を取得します"), u, okResult(u.id, employees)], progress0, { stepsSentAt: SENT });
    expect(r.progress.currentTool).toBeUndefined();
    expect(r.progress.steps).toEqual([
      {
        stepId: "s1",
        state: "done",
        okCalls: 1,
        errorCalls: 0,
        note: "従業員 2 件を取得しました",
        table: { label: "従業員", columns: ["従業員番号", "従業員名", "入社日"], rows: [["A1", "山田 太郎", "2020-04-01"], ["", "佐藤 花子", ""]], total: 2 },
        // A birth date is HR personal data (lib/freee/hr-personal-data.ts): never a column on a card, and the
        // result goes only to whom may see it.
        personal: ["birth_date"],
      },
    ]);
  });

  it("a call still waiting for its result is the running tool, and its step is running", () => {
    const r = interpretEvents([msg("[step:s1]"), use("freee_hr_list_employees")], progress0, { stepsSentAt: SENT });
    expect(r.progress.currentTool).toBe("freee_hr_list_employees");
    expect(r.progress.steps?.[0]?.state).toBe("running");
  });

  it("an error result fails the step; a retry that succeeds makes it done; the next marker closes an agent_decide step", () => {
    const u1 = use("freee_hr_get_employee");
    const u2 = use("freee_hr_get_employee");
    const first = interpretEvents([msg("[step:s1]"), u1, errResult(u1.id, "freee に該当するデータが見つかりません (404)。\n詳細")], progress0, { stepsSentAt: SENT });
    expect(first.progress.steps?.[0]).toMatchObject({ state: "failed", errorCalls: 1, note: "エラー: freee に該当するデータが見つかりません (404)。" });
    const second = interpretEvents([u2, okResult(u2.id, JSON.stringify({ employee: { id: 7 } })), msg("[step:s2] 判断します"), msg("[step:s3]"), idle()], first.progress, { stepsSentAt: SENT });
    expect(second.progress.steps?.map((s) => [s.stepId, s.state, s.note])).toEqual([
      ["s1", "done", "取得しました"],
      ["s2", "done", "判断しました"],
      ["s3", "done", "判断しました"],
    ]);
    expect(second.completed).toBe(true);
  });

  it("a result that is not JSON (cut short) gives no table, only the line", () => {
    const u = use("freee_accounting_list_deals");
    const r = interpretEvents([msg("[step:s1]"), u, okResult(u.id, '{"deals":[{"id":1')], progress0, { stepsSentAt: SENT });
    expect(r.progress.steps?.[0]).toMatchObject({ state: "done", note: "取得しました" });
    expect(r.progress.steps?.[0]?.table).toBeUndefined();
  });
});

describe("read tables stay small enough for the Execution item", () => {
  const okResult = (useId: string, text: string) =>
    ({ id: `e${++n}`, type: "agent.mcp_tool_result", processed_at: at(1), mcp_tool_use_id: useId, is_error: false, content: [{ type: "text", text }] }) as BetaManagedAgentsSessionEvent;
  it("at most 50 rows and 6 read tables a run; the count is freee's own total_count when it gives one", () => {
    const events: BetaManagedAgentsSessionEvent[] = [];
    for (let i = 1; i <= 8; i++) {
      const u = use("freee_accounting_list_deals");
      events.push(msg(`[step:s${i}]`), u, okResult(u.id, JSON.stringify({ deals: Array.from({ length: 80 }, (_, k) => ({ id: k, amount: 1000 })), meta: { total_count: 250 } })));
    }
    const steps = interpretEvents(events, progress0, { stepsSentAt: SENT }).progress.steps ?? [];
    expect(steps.filter((s) => s.table !== undefined)).toHaveLength(6);
    expect(steps[0]?.table).toMatchObject({ label: "取引", total: 250 });
    expect(steps[0]?.table?.rows).toHaveLength(50);
    expect(steps[0]?.table?.rows[0]).toEqual(["1,000円"]);
    expect(steps[7]).toMatchObject({ state: "done", note: "取引 250 件を取得しました" });
    expect(JSON.stringify(steps).length).toBeLessThan(120_000);
  });
});
