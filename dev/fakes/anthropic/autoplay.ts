import { RESULT_DONE, RESULT_INCOMPLETE } from "../../../lib/model/agent/agent-prompt";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AGENT_DECIDE, toolSummary } from "../../../lib/freee/tools/summaries";
import { sleep } from "../http";
import type { FakeAnthropic } from "./fake-anthropic";
import type { FakeSession } from "./sessions";

/**
 * The fake's "plays a session by itself" mode, for the sandbox: a session plays the approved steps for real —
 * for each step it writes the `[step:<id>]` marker, calls the tool on the freee MCP server named in the session
 * with the vault's bearer (so the MCP server, its allow-list, audit and freee all run), and reports the result;
 * then it ends its turn with a summary. Deterministic and offline.
 */

interface ParsedStep {
  stepId: string;
  tool: string;
  input: Record<string, unknown>;
}

export interface Autoplay {
  play(session: FakeSession, api: FakeAnthropic): void;
  /** Interrupt every session still playing and wait for them to stop (shutdown). */
  stop(): Promise<void>;
}

/**
 * `honest` (default) ends with the result line the steps earned; `done` always claims `[result:done]`, as a model
 * that glosses over a failed tool call would: what is then marked done must come from the MCP server's ledger.
 */
export type AgentClaims = "honest" | "done";

export function createAutoplay(options: { stepDelayMs?: number; claims?: AgentClaims } = {}): Autoplay {
  const stepDelayMs = options.stepDelayMs ?? 400;
  const claims = options.claims ?? "honest";
  const running = new Set<Promise<void>>();
  const sessions = new Set<FakeSession>();

  async function run(session: FakeSession, api: FakeAnthropic): Promise<void> {
    const credential = session.vault_ids.flatMap((id) => [...api.credentials.values()].filter((c) => c.vaultId === id))[0];
    const auth = credential?.body.auth as { token?: string; mcp_server_url?: string } | undefined;
    const servers = ((session.body.agent as { mcp_servers?: { url?: string }[] } | undefined)?.mcp_servers ?? []).map((s) => s.url);
    const mcpUrl = auth?.mcp_server_url ?? servers[0] ?? api.agents.get(String((session.body.agent as { id?: string }).id))?.mcp_servers?.[0]?.url;
    const text = session.events.filter((e) => e.type === "user.message").flatMap((e) => ((e.content ?? []) as { text?: string }[]).map((c) => c.text ?? "")).join("\n");
    const steps = parseSteps(text);
    const say = (message: string) => api.push(session, [{ type: "agent.message", content: [{ type: "text", text: message }] }]);
    const fail = (type: string, message: string) => api.push(session, [{ type: "session.error", error: { type, message, retry_status: { type: "terminal" } } }, { type: "session.status_terminated" }]);
    let client: Client | undefined;
    const results: string[] = [];
    try {
      for (const [index, step] of steps.entries()) {
        // The summary names a step as the user's cards do, by its number and in words (the agent prompt asks so).
        const named = `${index + 1}. ${step.tool === AGENT_DECIDE ? "判断" : (toolSummary(step.tool)?.description ?? "freee の操作").replace(/（[^）]*API）。?.*$/, "").replace(/。$/, "")}`;
        await sleep(stepDelayMs);
        if (session.interrupted) return;
        say(`[step:${step.stepId}] ${step.tool === AGENT_DECIDE ? "判断します" : `${step.tool} を実行します`}`);
        session.usage.output_tokens += 40;
        if (step.tool === AGENT_DECIDE) {
          results.push(`${named}: 前のステップの結果から判断しました（${String(step.input.instruction ?? "判断")}）`);
          continue;
        }
        if (mcpUrl === undefined || auth?.token === undefined) return void fail("mcp_connection_failed_error", "no MCP server or credential for this session");
        if (client === undefined) {
          try {
            client = new Client({ name: "sandbox-scripted-agent", version: "1.0.0" });
            await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${auth.token}` } } }));
          } catch (err) {
            const unauthorised = err instanceof Error && /401|unauthori[sz]ed/i.test(err.message);
            return void fail(unauthorised ? "mcp_authentication_failed_error" : "mcp_connection_failed_error", err instanceof Error ? err.message.slice(0, 200) : String(err));
          }
        }
        const [use] = api.push(session, [{ type: "agent.mcp_tool_use", name: step.tool, input: step.input, mcp_server_name: "freee", evaluated_permission: "allow" }]);
        let output: string;
        let isError: boolean;
        try {
          const result = (await client.callTool({ name: step.tool, arguments: step.input })) as CallToolResult;
          output = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
          isError = result.isError === true;
        } catch (err) {
          output = err instanceof Error ? err.message : String(err);
          isError = true;
        }
        if (session.interrupted) return;
        api.push(session, [{ type: "agent.mcp_tool_result", mcp_tool_use_id: use?.id, content: [{ type: "text", text: output }], is_error: isError }]);
        results.push(`${named}: ${isError ? "失敗" : "成功"}${isError ? `（${output.slice(0, 120)}）` : ""}`);
      }
      await sleep(stepDelayMs);
      if (session.interrupted) return;
      // The agent's side of the L4 completion contract (lib/model/agent/agent-prompt.ts): the result line last.
      const failed = claims === "honest" && results.some((r) => r.includes(": 失敗"));
      say(`全 ${steps.length} ステップを実行しました（スクリプトのモデル）。\n${results.join("\n")}\n${failed ? RESULT_INCOMPLETE : RESULT_DONE}`);
      session.usage = { ...session.usage, input_tokens: session.usage.input_tokens + 500, output_tokens: session.usage.output_tokens + 120 };
      api.push(session, [{ type: "session.status_idle", stop_reason: { type: "end_turn" }, stop_details: null }]);
    } finally {
      if (client !== undefined) await client.close();
    }
  }

  return {
    play(session, api) {
      sessions.add(session);
      const done = run(session, api).catch((err: unknown) => {
        // A bug in the script itself: end the session visibly rather than leave it running forever.
        api.push(session, [{ type: "session.error", error: { type: "unknown_error", message: err instanceof Error ? err.message : String(err), retry_status: { type: "terminal" } } }, { type: "session.status_terminated" }]);
      });
      running.add(done);
      void done.finally(() => running.delete(done));
    },
    async stop() {
      for (const session of sessions) session.interrupted = true;
      await Promise.all([...running]);
    },
  };
}

/** The steps back from the session's first user.message (lib/model/agent/agent-prompt.ts `buildTaskMessage`). */
export function parseSteps(text: string): ParsedStep[] {
  const steps: ParsedStep[] = [];
  const re = /\[step:([A-Za-z0-9_.-]+)\] ツール: (\S+?)(?:（[^）]*）)?\n\s+入力: (.*)/g;
  for (const m of text.matchAll(re)) {
    const raw: unknown = safeParse(m[3] as string);
    // toolInput is stored as a JSON string or an object depending on the layer's output; accept both.
    const input = typeof raw === "string" ? safeParse(raw) : raw;
    steps.push({ stepId: m[1] as string, tool: m[2] as string, input: (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown> });
  }
  return steps;
}

export function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}
