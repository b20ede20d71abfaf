import type Anthropic from "@anthropic-ai/sdk";
import type { AgentClient } from "./agent-client";
import type { Logger } from "@aws-lambda-powertools/logger";
import type { BetaManagedAgentsSessionEvent } from "@anthropic-ai/sdk/resources/beta/sessions/events";
import type { BetaManagedAgentsSession } from "@anthropic-ai/sdk/resources/beta/sessions/sessions";
import type { ExecutionProgress, TokenUsage } from "../../core/domain/records";
import { classifyAnthropicError } from "../../core/errors/classify";
import {
  AgentRunFailedError,
  EmptyResponseError,
  MalformedOutputError,
  StateConflictError,
} from "../../core/errors/taxonomy";
import { FREEE_TOOL_NAMES } from "../../freee/tools/summaries";
import type { AgentRunner, PollOutcome, StartRunInput, StartRunResult } from "./agent-runner";
import type { AgentConfig } from "./agent-config";
import { APP_METADATA, type AgentSetup } from "./agent-setup";
import { issueMcpBearer } from "../../mcp/bearer";
import { buildSessionCreateParams, SESSION_METADATA_KEYS } from "./session-request";
import { interpretEvents } from "./session-events";

/** One poll reads at most this many new events; the rest come next poll (lastEventAt moves on). */
export const MAX_EVENTS_PER_POLL = 500;
export const EVENT_PAGE_SIZE = 100;

export interface ManagedAgentRunnerDeps {
  client: AgentClient;
  config: AgentConfig;
  /** The agent / environment pair, created once (see agent-setup.ts). */
  setup: () => Promise<AgentSetup>;
  /** HMAC secret for the MCP bearer (loaded lazily: only `start` needs it). */
  bearerSecret: () => Promise<string>;
  logger: Logger;
  now?: () => Date;
}

/**
 * L4 on Claude Managed Agents (docs/architecture.md, the approved Process is the capability). `start` creates one session per Execution; `poll` reads the
 * session and its new events; `interrupt` sends `user.interrupt`. Errors leave as taxonomy classes.
 */
export class ManagedAgentRunner implements AgentRunner {
  private readonly now: () => Date;

  constructor(private readonly deps: ManagedAgentRunnerDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async start(input: StartRunInput): Promise<StartRunResult> {
    if (input.steps.length === 0) throw new MalformedOutputError("start: the approved Process has no steps");
    if (input.allowedTools.length === 0) throw new MalformedOutputError("start: no freee tool is allowed for this run");
    const unknown = input.allowedTools.filter((name) => !FREEE_TOOL_NAMES.has(name));
    if (unknown.length > 0) {
      // Only registry tools may be enabled: a typo here would silently enable nothing (or something else).
      throw new MalformedOutputError("start: allowedTools names tools the freee MCP server does not offer", { details: { unknown } });
    }
    const setup = await this.deps.setup();

    // A retried start (the first attempt's reply was lost) finds its own session instead of making a second.
    const existing = await this.findSessionOf(input.executionId, setup.agentId);
    if (existing !== undefined) {
      this.deps.logger.info("start: reusing the session created by an earlier attempt", { sessionId: existing.id });
      return { sessionId: existing.id, stepsSentAt: existing.created_at };
    }

    const vaultId = await this.createCredentialVault(input);
    try {
      const session = await this.deps.client.beta.sessions.create(
        buildSessionCreateParams({ input, config: this.deps.config, agentId: setup.agentId, environmentId: setup.environmentId, vaultId }),
      );
      this.deps.logger.info("session created", { sessionId: session.id, executionId: input.executionId });
      // The steps travel as initial_events of the create call: they are sent when the session exists.
      return { sessionId: session.id, stepsSentAt: session.created_at };
    } catch (err) {
      await this.archiveVaults([vaultId]);
      throw classify(err, "session create");
    }
  }

  async poll(sessionId: string, progress: ExecutionProgress): Promise<PollOutcome> {
    const stepsSentAt = progress.stepsSentAt;
    if (stepsSentAt === undefined) {
      throw new StateConflictError("poll: progress has no stepsSentAt (start did not record it)", { details: { sessionId } });
    }
    const session = await this.call("session retrieve", () => this.deps.client.beta.sessions.retrieve(sessionId));
    const events = await this.newEvents(sessionId, progress);
    const usage = toTokenUsage(session.usage);

    let result: ReturnType<typeof interpretEvents>;
    try {
      result = interpretEvents(events, progress, { stepsSentAt });
    } catch (err) {
      await this.archiveVaults(session.vault_ids);
      throw err;
    }

    if (result.completed) {
      const summary = result.lastAgentText ?? (await this.lastAgentText(sessionId));
      await this.archiveVaults(session.vault_ids);
      if (summary === undefined || summary.trim() === "") {
        throw new EmptyResponseError("managed agent: the turn ended without a result message", { details: { sessionId } });
      }
      const finished: ExecutionProgress = {
        ...result.progress,
        completedSteps: result.progress.completedSteps + (result.progress.currentStepId === undefined ? 0 : 1),
      };
      delete finished.currentTool;
      return { state: "completed", progress: finished, resultSummary: summary.trim(), usage };
    }
    if (session.status === "terminated") {
      await this.archiveVaults(session.vault_ids);
      throw new AgentRunFailedError("managed agent: the session is terminated", {
        reason: "terminated",
        details: { reason: "terminated", sessionId },
      });
    }
    return { state: "running", progress: result.progress, usage };
  }

  /**
   * Sends `user.interrupt`. Throws the classified error when the call fails (the caller marks the Execution
   * cancelled anyway and records the error); the session's credential vault is archived either way.
   */
  async interrupt(sessionId: string): Promise<void> {
    let failure: unknown;
    try {
      await this.deps.client.beta.sessions.events.send(sessionId, { events: [{ type: "user.interrupt" }] });
      this.deps.logger.info("interrupt sent", { sessionId });
    } catch (err) {
      failure = classify(err, "session interrupt");
    }
    await this.releaseCredentials(sessionId);
    if (failure !== undefined) throw failure;
  }

  private async newEvents(sessionId: string, progress: ExecutionProgress): Promise<BetaManagedAgentsSessionEvent[]> {
    const events: BetaManagedAgentsSessionEvent[] = [];
    const seen = new Set(progress.seenEventIds);
    // `gte`, not `gt`: several events can share the boundary timestamp; seenEventIds drops the repeats.
    const query = {
      order: "asc" as const,
      limit: EVENT_PAGE_SIZE,
      ...(progress.lastEventAt === undefined ? {} : { "created_at[gte]": progress.lastEventAt }),
    };
    await this.call("events list", async () => {
      for await (const event of this.deps.client.beta.sessions.events.list(sessionId, query)) {
        if (seen.has(event.id)) continue;
        events.push(event);
        if (events.length >= MAX_EVENTS_PER_POLL) break;
      }
    });
    return events;
  }

  private async lastAgentText(sessionId: string): Promise<string | undefined> {
    const page = await this.call("events list (last message)", () =>
      this.deps.client.beta.sessions.events.list(sessionId, { types: ["agent.message"], order: "desc", limit: 1 }),
    );
    const last = page.data[0];
    if (last === undefined || last.type !== "agent.message") return undefined;
    return last.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  }

  private async findSessionOf(executionId: string, agentId: string): Promise<BetaManagedAgentsSession | undefined> {
    const since = new Date(this.now().getTime() - this.deps.config.sessionLookbackSeconds * 1000).toISOString();
    const page = await this.call("session list", () =>
      this.deps.client.beta.sessions.list({ agent_id: agentId, "created_at[gte]": since, limit: 100 }),
    );
    return page.data.find((s) => s.metadata[SESSION_METADATA_KEYS.executionId] === executionId);
  }

  /** One vault per execution: its static_bearer names this workspace and execution and expires with the run. */
  private async createCredentialVault(input: StartRunInput): Promise<string> {
    const secret = await this.deps.bearerSecret();
    const token = issueMcpBearer(
      { teamId: input.teamId, executionId: input.executionId, ttlSeconds: this.deps.config.bearerTtlSeconds, now: this.now() },
      secret,
    );
    const metadata = { ...APP_METADATA, executionId: input.executionId, teamId: input.teamId };
    const vault = await this.call("vault create", () =>
      this.deps.client.beta.vaults.create({ display_name: `freee MCP ${input.executionId}`.slice(0, 255), metadata }),
    );
    try {
      await this.deps.client.beta.vaults.credentials.create(vault.id, {
        display_name: "freee MCP bearer",
        metadata,
        auth: { type: "static_bearer", mcp_server_url: this.deps.config.mcpServerUrl, token },
      });
    } catch (err) {
      await this.archiveVaults([vault.id]);
      throw classify(err, "vault credential create");
    }
    return vault.id;
  }

  private async releaseCredentials(sessionId: string): Promise<void> {
    try {
      const session = await this.deps.client.beta.sessions.retrieve(sessionId);
      await this.archiveVaults(session.vault_ids);
    } catch (err) {
      this.deps.logger.warn("could not look up the session's vaults to archive them; the bearer expires on its own", {
        sessionId,
        error: err instanceof Error ? err : String(err),
      });
    }
  }

  /** Best effort: the bearer inside expires by itself, so a failed archive is logged, not fatal. */
  private async archiveVaults(vaultIds: readonly string[]): Promise<void> {
    const results = await Promise.allSettled(vaultIds.map((id) => this.deps.client.beta.vaults.archive(id)));
    results.forEach((result, i) => {
      if (result.status === "rejected") {
        this.deps.logger.warn("could not archive a session vault; the bearer expires on its own", {
          vaultId: vaultIds[i],
          error: result.reason instanceof Error ? result.reason : String(result.reason),
        });
      }
    });
  }

  private async call<T>(where: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw classify(err, where);
    }
  }
}

function classify(err: unknown, where: string): unknown {
  return classifyAnthropicError(err, `managed agents ${where}`) ?? err;
}

export function toTokenUsage(usage: BetaManagedAgentsSession["usage"] | undefined): TokenUsage {
  const cacheCreation = usage?.cache_creation;
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheReadInputTokens: usage?.cache_read_input_tokens ?? 0,
    cacheCreationInputTokens: (cacheCreation?.ephemeral_1h_input_tokens ?? 0) + (cacheCreation?.ephemeral_5m_input_tokens ?? 0),
  };
}
