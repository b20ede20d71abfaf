import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { verifyMcpBearer } from "../../../lib/mcp/bearer";
import { allowedToolsForSteps } from "../../../lib/freee/tools/summaries";
import {
  AgentRunFailedError,
  AuthError,
  BadRequestError,
  EmptyResponseError,
  FatalConfigError,
  RateLimitedError,
  RefusedResponseError,
  UpstreamServerError,
  UpstreamTimeoutError,
} from "../../../lib/core/errors/taxonomy";
import { ev, type ScriptedPoll } from "../../../dev/fakes/anthropic";
import { BEARER_SECRET, freshProgress, MCP_URL, startHarness, startInput, type Harness } from "./runner-harness";
import type { ExecutionProgress } from "../../../lib/core/domain/records";
import type { PollOutcome } from "../../../lib/model/agent/agent-runner";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => h.close());

/** Start a run and poll until it completes or throws (like the state machine's poll loop). */
async function run(
  polls: ScriptedPoll[],
  input = startInput(),
  maxPolls = 20,
): Promise<{ outcome: PollOutcome; progress: ExecutionProgress; sessionId: string }> {
  h.fake.scriptNextSession({ polls });
  const { sessionId, stepsSentAt } = await h.runner.start(input);
  let progress = freshProgress(stepsSentAt);
  for (let i = 0; i < maxPolls; i++) {
    const outcome = await h.runner.poll(sessionId, progress);
    progress = outcome.progress;
    if (outcome.state === "completed") return { outcome, progress, sessionId };
  }
  throw new Error("run did not finish");
}

async function failureOf(polls: ScriptedPoll[], input = startInput()): Promise<Error> {
  try {
    await run(polls, input);
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the run to fail");
}

describe("start", () => {
  it("creates one session enabling and always_allow'ing only the approved tools, with metadata and the steps in Japanese", async () => {
    const { sessionId, stepsSentAt } = await h.runner.start(startInput());
    const session = h.fake.sessions.get(sessionId);
    expect(session).toBeDefined();
    expect(stepsSentAt).toBe(session?.created_at);
    const body = h.fake.requestsTo("POST", "/v1/sessions")[0]?.body as Record<string, any>;
    expect(body.agent).toEqual({
      type: "agent_with_overrides",
      id: expect.stringMatching(/^agent_/),
      mcp_servers: [{ type: "url", name: "freee", url: MCP_URL }],
      tools: [
        {
          type: "mcp_toolset",
          mcp_server_name: "freee",
          default_config: { enabled: false, permission_policy: { type: "always_ask" } },
          configs: [
            { name: "freee_hr_list_employees", enabled: true, permission_policy: { type: "always_allow" } },
            { name: "freee_hr_update_work_record", enabled: true, permission_policy: { type: "always_allow" } },
          ],
        },
      ],
    });
    expect(body.metadata).toMatchObject({
      taskId: "T0001-C0001-1700000000_000100",
      executionId: "T0001-C0001-1700000000_000100-e1",
      teamId: "T0001",
    });
    const text: string = body.initial_events[0].content[0].text;
    expect(body.initial_events[0].type).toBe("user.message");
    expect(text).toContain("承認済みの実行ステップ");
    expect(text.indexOf("[step:s1]")).toBeLessThan(text.indexOf("[step:s2]"));
    expect(text).toContain("freee_hr_update_work_record");
  });

  it("an agent_decide step enables the read tools its scope names (allowedToolsForSteps) and nothing that writes", async () => {
    const steps = [
      { stepId: "s1", order: 1, tool: "agent_decide", toolInput: { instruction: "対象の従業員を決める" }, readScope: { tools: ["freee_hr_list_employees", "freee_hr_get_employee"] } },
      { stepId: "s2", order: 2, tool: "freee_hr_update_work_record", toolInput: { employee_id: 1, date: "2026-11-30" } },
    ];
    await h.runner.start(startInput({ steps, allowedTools: allowedToolsForSteps(steps) }));
    const body = h.fake.requestsTo("POST", "/v1/sessions")[0]?.body as Record<string, any>;
    const enabled: string[] = body.agent.tools[0].configs.map((c: { name: string }) => c.name);
    expect(enabled).toEqual(["freee_hr_get_employee", "freee_hr_list_employees", "freee_hr_update_work_record"]);
    expect(enabled).not.toContain("freee_api_get");
    expect(enabled).not.toContain("freee_accounting_create_deal");
    expect(enabled).not.toContain("freee_hr_update_basic_pay_rule");
  });

  it("puts a per-execution static_bearer for the MCP URL in a vault attached to the session", async () => {
    const { sessionId } = await h.runner.start(startInput());
    const session = h.fake.sessions.get(sessionId);
    expect(session?.vault_ids).toHaveLength(1);
    const [credential] = [...h.fake.credentials.values()];
    expect(credential?.vaultId).toBe(session?.vault_ids[0]);
    const auth = credential?.body.auth as { type: string; mcp_server_url: string; token: string };
    expect(auth.type).toBe("static_bearer");
    expect(auth.mcp_server_url).toBe(MCP_URL);
    expect(verifyMcpBearer(auth.token, BEARER_SECRET, { expectedExecutionId: "T0001-C0001-1700000000_000100-e1" })).toMatchObject({
      teamId: "T0001",
    });
  });

  it("a retried start finds the session of its first attempt instead of creating a second", async () => {
    const first = await h.runner.start(startInput());
    const second = await h.runner.start(startInput());
    expect(second).toEqual(first);
    expect(h.fake.requestsTo("POST", "/v1/sessions")).toHaveLength(1);
    // Another execution gets its own session.
    const other = await h.runner.start(startInput({ executionId: "T0001-C0001-1700000000_000100-e2" }));
    expect(other.sessionId).not.toBe(first.sessionId);
  });

  it("session creation failure is classified (5xx → UpstreamServerError for the Retry) and its vault archived", async () => {
    h.fake.failNext({ method: "POST", path: "/v1/sessions", status: 503 });
    await expect(h.runner.start(startInput())).rejects.toBeInstanceOf(UpstreamServerError);
    const [vaultId] = [...h.fake.vaults.keys()];
    expect(h.fake.vaults.get(vaultId as string)?.archived_at).not.toBeNull();
    // The Step Functions retry then succeeds.
    await expect(h.runner.start(startInput())).resolves.toMatchObject({ sessionId: expect.stringMatching(/^sesn_/) });
  });

  it("SDK errors map to the taxonomy: 429 → RateLimitedError, 400 → BadRequestError, 401 → FatalConfigError", async () => {
    h.fake.failNext({ method: "POST", path: "/v1/sessions", status: 429, headers: { "retry-after": "7" } });
    const limited = await h.runner.start(startInput()).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect((limited as RateLimitedError).retryAfterSeconds).toBe(7);
    h.fake.failNext({ method: "POST", path: "/v1/sessions", status: 400 });
    await expect(h.runner.start(startInput())).rejects.toBeInstanceOf(BadRequestError);
    h.fake.failNext({ method: "GET", path: /^\/v1\/sessions\/[^/]+$/, status: 401 });
    await expect(h.runner.poll("sesn_x", freshProgress(new Date().toISOString()))).rejects.toBeInstanceOf(FatalConfigError);
  });
});

describe("poll", () => {
  it("completes on idle/end_turn after the steps, with the agent's last text, usage and progress", async () => {
    const { outcome, progress } = await run([
      { events: [ev.running(), ev.agentMessage("[step:s1] 従業員一覧を取得します"), ev.mcpToolUse("freee_hr_list_employees")] },
      {
        events: [
          ev.mcpToolResult({ text: "3 名" }),
          ev.agentMessage("[step:s2] 勤怠を更新します"),
          ev.mcpToolUse("freee_hr_update_work_record"),
          ev.mcpToolResult({ text: "勤怠記録が見つかりません", isError: true }),
        ],
        usage: { input_tokens: 50 },
      },
      {
        events: [ev.agentMessage("従業員 3 名を確認し、勤怠 1 件は記録がなく更新できませんでした。"), ev.idle("end_turn")],
        usage: {
          input_tokens: 120,
          output_tokens: 40,
          cache_read_input_tokens: 10,
          cache_creation: { ephemeral_5m_input_tokens: 3, ephemeral_1h_input_tokens: 2 },
        },
      },
    ]);
    expect(outcome).toMatchObject({
      state: "completed",
      resultSummary: "従業員 3 名を確認し、勤怠 1 件は記録がなく更新できませんでした。",
      usage: { inputTokens: 120, outputTokens: 40, cacheReadInputTokens: 10, cacheCreationInputTokens: 5 },
    });
    expect(progress.currentStepId).toBe("s2");
    expect(progress.completedSteps).toBe(2);
    expect(progress.toolErrors).toEqual([{ tool: "freee_hr_update_work_record", message: "勤怠記録が見つかりません" }]);
  });

  it("reports running progress between polls: current step, current tool, tool errors returned to the agent", async () => {
    h.fake.scriptNextSession({
      polls: [
        { events: [ev.running(), ev.agentMessage("[step:s1]"), ev.mcpToolUse("freee_hr_list_employees")] },
        { events: [ev.mcpToolResult({ text: "403 権限がありません", isError: true })] },
      ],
    });
    const { sessionId, stepsSentAt } = await h.runner.start(startInput());
    const first = await h.runner.poll(sessionId, freshProgress(stepsSentAt));
    expect(first).toMatchObject({ state: "running", progress: { currentStepId: "s1", currentTool: "freee_hr_list_employees", completedSteps: 0 } });
    // The tool_use was in the previous poll: the error is still attributed to its tool.
    const second = await h.runner.poll(sessionId, first.progress);
    expect(second.progress.toolErrors).toEqual([{ tool: "freee_hr_list_employees", message: "403 権限がありません" }]);
  });

  it("skips events already seen (created_at[gte] boundary repeats) and keeps seenEventIds bounded", async () => {
    h.fake.scriptNextSession({ polls: [{ events: [ev.running(), ev.mcpToolUse("freee_hr_list_employees")] }] });
    const { sessionId, stepsSentAt } = await h.runner.start(startInput());
    const first = await h.runner.poll(sessionId, freshProgress(stepsSentAt));
    const session = h.fake.sessions.get(sessionId);
    // An event sharing the last timestamp arrives after the first poll, plus a tool error.
    h.fake.scriptSession(sessionId, {
      polls: [{ events: [ev.mcpToolResult({ text: "失敗", isError: true })].map((e) => ({ ...e, processed_at: first.progress.lastEventAt })) }],
    });
    const second = await h.runner.poll(sessionId, first.progress);
    expect(second.progress.toolErrors).toHaveLength(1);
    const listCall = h.fake.requestsTo("GET", `/v1/sessions/${sessionId}/events`).at(-1);
    expect(listCall?.query["created_at[gte]"]).toBe(first.progress.lastEventAt);
    // Polling again with nothing new changes nothing (the boundary events are skipped by id).
    const third = await h.runner.poll(sessionId, second.progress);
    expect(third.progress.toolErrors).toHaveLength(1);
    expect(third.progress.seenEventIds).toEqual(second.progress.seenEventIds);
    expect(session?.events.length).toBeGreaterThan(0);

    const many = { ...second.progress, seenEventIds: Array.from({ length: 250 }, (_, i) => `old_${i}`) };
    h.fake.scriptSession(sessionId, { polls: [{ events: [ev.thinking()] }] });
    const bounded = await h.runner.poll(sessionId, many);
    expect(bounded.progress.seenEventIds.length).toBeLessThanOrEqual(200);
  });

  it("an end_turn from before the steps were sent is not completion", async () => {
    h.fake.scriptNextSession({ polls: [{ events: [ev.idle("end_turn", { processedAt: "2020-01-01T00:00:00.000Z" })] }] });
    const { sessionId, stepsSentAt } = await h.runner.start(startInput());
    const outcome = await h.runner.poll(sessionId, freshProgress(stepsSentAt));
    expect(outcome.state).toBe("running");
  });

  it("takes the last agent message from an earlier poll when the idle event comes alone", async () => {
    const { outcome } = await run([{ events: [ev.running(), ev.agentMessage("完了しました。")] }, { events: [ev.idle("end_turn")] }]);
    expect(outcome).toMatchObject({ state: "completed", resultSummary: "完了しました。" });
  });

  it("an end_turn without any agent text is an EmptyResponseError, not a completion", async () => {
    const err = await failureOf([{ events: [ev.running(), ev.idle("end_turn")] }]);
    expect(err).toBeInstanceOf(EmptyResponseError);
  });

  it.each([
    ["requires_action", [ev.mcpToolUse("freee_accounting_create_deal"), ev.idle("requires_action", { eventIds: ["x"] })]],
    ["retries_exhausted", [ev.idle("retries_exhausted")]],
    ["budget_reached", [ev.idle("budget_reached")]],
    ["terminated", [ev.terminated()]],
  ] as const)("idle/%s → AgentRunFailedError with that reason", async (reason, events) => {
    const err = await failureOf([{ events: [ev.running()] }, { events: [...events] }]);
    expect(err).toBeInstanceOf(AgentRunFailedError);
    expect(err.name).toBe("AgentRunFailedError");
    expect((err as AgentRunFailedError).reason).toBe(reason);
  });

  it("a session whose status is terminated without a terminated event still fails", async () => {
    const err = await failureOf([{ events: [ev.running()], status: "terminated" }]);
    expect((err as AgentRunFailedError).reason).toBe("terminated");
  });

  it("refusal → RefusedResponseError keeping stop_details", async () => {
    const stopDetails = { type: "refusal", category: "general_harms", explanation: "no" };
    const err = await failureOf([{ events: [ev.running(), ev.idle("refusal", { stopDetails })] }]);
    expect(err).toBeInstanceOf(RefusedResponseError);
    expect((err as RefusedResponseError).stopDetails).toEqual(stopDetails);
  });

  it.each([
    ["mcp_connection_failed_error", "terminal", "mcp_unreachable"],
    ["mcp_connection_failed_error", "exhausted", "mcp_unreachable"],
    ["model_overloaded_error", "exhausted", "model_overloaded"],
    ["unknown_error", "terminal", "session_error"],
    ["billing_error", "terminal", "session_error"],
  ] as const)("session.error %s (%s) → AgentRunFailedError %s", async (type, retry, reason) => {
    const err = await failureOf([{ events: [ev.running(), ev.sessionError(type, retry, "boom", { mcp_server_name: "freee" })] }]);
    expect(err).toBeInstanceOf(AgentRunFailedError);
    expect((err as AgentRunFailedError).reason).toBe(reason);
    expect((err as AgentRunFailedError).details).toMatchObject({ errorType: type, retryStatus: retry });
  });

  it("session.error mcp_authentication_failed (terminal) → AuthError", async () => {
    const err = await failureOf([{ events: [ev.sessionError("mcp_authentication_failed_error", "terminal", "401", { mcp_server_name: "freee" })] }]);
    expect(err).toBeInstanceOf(AuthError);
  });

  it("a session.error that is still retrying does not end the run", async () => {
    const { outcome } = await run([
      { events: [ev.running(), ev.sessionError("model_overloaded_error", "retrying")] },
      { events: [ev.rescheduled(), ev.running(), ev.agentMessage("完了"), ev.idle("end_turn")] },
    ]);
    expect(outcome.state).toBe("completed");
  });

  it("a transient API error while polling is classified for the Step Functions Retry", async () => {
    h.fake.scriptNextSession({ polls: [{ events: [ev.running()] }] });
    const { sessionId, stepsSentAt } = await h.runner.start(startInput());
    h.fake.failNext({ method: "GET", path: `/v1/sessions/${sessionId}/events`, status: 529 });
    await expect(h.runner.poll(sessionId, freshProgress(stepsSentAt))).rejects.toBeInstanceOf(UpstreamServerError);
    h.fake.failNext({ method: "GET", path: `/v1/sessions/${sessionId}`, status: 429 });
    await expect(h.runner.poll(sessionId, freshProgress(stepsSentAt))).rejects.toBeInstanceOf(RateLimitedError);
  });

  it("archives the session's vault when the run ends (completed or failed)", async () => {
    const { sessionId } = await run([{ events: [ev.agentMessage("完了"), ev.idle("end_turn")] }]);
    const vaultId = h.fake.sessions.get(sessionId)?.vault_ids[0] as string;
    expect(h.fake.vaults.get(vaultId)?.archived_at).not.toBeNull();
    await failureOf([{ events: [ev.terminated()] }], startInput({ executionId: "T0001-C0001-1700000000_000100-e2" }));
    const failedVault = [...h.fake.sessions.values()].at(-1)?.vault_ids[0] as string;
    expect(h.fake.vaults.get(failedVault)?.archived_at).not.toBeNull();
  });
});

describe("interrupt", () => {
  it("sends user.interrupt and archives the session's vault", async () => {
    h.fake.scriptNextSession({ polls: [{ events: [ev.running()] }] });
    const { sessionId } = await h.runner.start(startInput());
    await h.runner.interrupt(sessionId);
    const sent = h.fake.requestsTo("POST", `/v1/sessions/${sessionId}/events`);
    expect(sent.map((r) => r.body)).toEqual([{ events: [{ type: "user.interrupt" }] }]);
    const vaultId = h.fake.sessions.get(sessionId)?.vault_ids[0] as string;
    expect(h.fake.vaults.get(vaultId)?.archived_at).not.toBeNull();
  });

  it("a failing interrupt throws the classified error (the caller cancels anyway) after archiving the vault", async () => {
    const { sessionId } = await h.runner.start(startInput());
    h.fake.failNext({ method: "POST", path: `/v1/sessions/${sessionId}/events`, status: 500 });
    await expect(h.runner.interrupt(sessionId)).rejects.toBeInstanceOf(UpstreamServerError);
    const vaultId = h.fake.sessions.get(sessionId)?.vault_ids[0] as string;
    expect(h.fake.vaults.get(vaultId)?.archived_at).not.toBeNull();
  });
});

describe("createAgentRunner / start input checks", () => {
  it("refuses a run with no steps, no tools, or a tool the MCP server does not offer", async () => {
    await expect(h.runner.start(startInput({ steps: [] }))).rejects.toMatchObject({ name: "MalformedOutputError" });
    await expect(h.runner.start(startInput({ allowedTools: [] }))).rejects.toMatchObject({ name: "MalformedOutputError" });
    await expect(h.runner.start(startInput({ allowedTools: ["freee_delete_everything"] }))).rejects.toMatchObject({
      name: "MalformedOutputError",
    });
    expect(h.fake.requestsTo("POST", "/v1/sessions")).toHaveLength(0);
  });

  it("a missing bearer secret fails start with FatalConfigError and creates no session", async () => {
    const { createAgentRunner } = await import("../../../wiring/agent-runner");
    const { MCP_BEARER_SECRET: _drop, ...env } = h.env;
    const runner = await createAgentRunner(env, { doc: h.table.doc, logger: h.logger });
    await expect(runner.start(startInput())).rejects.toBeInstanceOf(FatalConfigError);
    expect(h.fake.requestsTo("POST", "/v1/sessions")).toHaveLength(0);
  });
});

describe("timeouts", () => {
  it("a request that outlives ANTHROPIC_TIMEOUT_MS is an UpstreamTimeoutError (its own Retry row)", async () => {
    const { createAgentRunner } = await import("../../../wiring/agent-runner");
    const runner = await createAgentRunner({ ...h.env, ANTHROPIC_TIMEOUT_MS: "150" }, { doc: h.table.doc, logger: h.logger });
    h.fake.delay("GET", /^\/v1\/sessions\/sesn_slow$/, 600);
    await expect(runner.poll("sesn_slow", freshProgress(new Date().toISOString()))).rejects.toBeInstanceOf(UpstreamTimeoutError);
  });
});
