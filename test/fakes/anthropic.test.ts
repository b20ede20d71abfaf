import Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_PAGE_SIZE, FakeAnthropic, MANAGED_AGENTS_BETA } from "../../dev/fakes/anthropic/fake-anthropic";
import { messageReply } from "../../dev/fakes/anthropic/messages";
import { ev } from "../../dev/fakes/anthropic/sessions";
import { buildParams } from "../../lib/model/call-model";
import { LAYER_DEFAULTS } from "../../lib/model/settings";

/** Each rule of the Anthropic fake, shown through the installed SDK (the request shapes its types define). */

let fake: FakeAnthropic;
let client: Anthropic;

beforeEach(async () => {
  fake = await new FakeAnthropic().start();
  client = new Anthropic({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
});
afterEach(() => fake.close());

async function status(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  const err = (await call.then(
    () => {
      throw new Error("the API accepted the request");
    },
    (e: unknown) => e,
  )) as InstanceType<typeof Anthropic.APIError>;
  return { status: err.status as number, message: (err.error as { error?: { message?: string } } | undefined)?.error?.message ?? "" };
}

const mcpUrl = "https://abc.lambda-url.ap-northeast-1.on.aws/mcp";
const freeeServer = { type: "url" as const, name: "freee", url: mcpUrl };
const freeeToolset = { type: "mcp_toolset" as const, mcp_server_name: "freee", default_config: { enabled: false, permission_policy: { type: "always_ask" as const } } };
const limitedTo = (hosts: string[], allowMcp = false) => ({ type: "cloud" as const, networking: { type: "limited" as const, allowed_hosts: hosts, allow_mcp_servers: allowMcp, allow_package_managers: false } });

async function agentAndEnv(hosts = ["abc.lambda-url.ap-northeast-1.on.aws"], allowMcp = false) {
  const agent = await client.beta.agents.create({ name: "executor", model: "claude-sonnet-4-6", mcp_servers: [freeeServer], tools: [freeeToolset] });
  const environment = await client.beta.environments.create({ name: "env", config: limitedTo(hosts, allowMcp) });
  return { agent, environment };
}

const userMessage = { type: "user.message" as const, content: [{ type: "text" as const, text: "[step:s1] ツール: freee_hr_list_employees" }] };

describe("Anthropic fake: Messages", () => {
  const base = { max_tokens: 1024, messages: [{ role: "user" as const, content: "こんにちは" }] };

  it("an effort the model does not accept (Haiku 4.5) is a 400; Sonnet 4.6 takes it", async () => {
    const res = await status(client.messages.create({ ...base, model: "claude-haiku-4-5", output_config: { effort: "medium" } }));
    expect(res).toEqual({ status: 400, message: "output_config.effort: claude-haiku-4-5 does not support effort 'medium'" });
    fake.enqueue(messageReply("ok"));
    expect((await client.messages.create({ ...base, model: "claude-sonnet-4-6", output_config: { effort: "medium" } })).content).toHaveLength(1);
  });

  it("metadata other than user_id, or a user_id over 256 characters, is a 400", async () => {
    expect(await status(client.messages.create({ ...base, model: "claude-sonnet-4-6", metadata: { user_id: "u", taskId: "t" } as never }))).toEqual({ status: 400, message: "metadata.taskId: Extra inputs are not permitted" });
    expect((await status(client.messages.create({ ...base, model: "claude-sonnet-4-6", metadata: { user_id: "u".repeat(257) } }))).status).toBe(400);
  });

  it("an unknown model is a 404, max_tokens over the model's limit a 400, a wrong key a 401", async () => {
    expect(await status(client.messages.create({ ...base, model: "claude-nonexistent" }))).toEqual({ status: 404, message: "model: claude-nonexistent" });
    expect((await status(client.messages.create({ ...base, model: "claude-haiku-4-5", max_tokens: 64_001 }, { timeout: 5000 }))).status).toBe(400);
    expect((await status(new Anthropic({ apiKey: "sk-ant-wrong", baseURL: fake.url, maxRetries: 0 }).messages.create({ ...base, model: "claude-haiku-4-5" }))).status).toBe(401);
  });

  it("the layers' own request bodies pass at their default settings (L1 Haiku without effort, L2/L3 Sonnet with it)", async () => {
    for (const layer of ["L1", "L2", "L3"] as const) {
      fake.enqueue(messageReply("ok"));
      await client.messages.create(buildParams({ layer, system: "system prompt", user: "依頼", settings: LAYER_DEFAULTS[layer] } as never, undefined));
    }
    expect(fake.requestsTo("POST", "/v1/messages").map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it("a request without the anthropic-version header is a 400", async () => {
    const res = await fetch(`${fake.url}/v1/messages`, { method: "POST", headers: { "x-api-key": fake.apiKey, "content-type": "application/json" }, body: JSON.stringify({ ...base, model: "claude-haiku-4-5" }) });
    expect(res.status).toBe(400);
  });
});

describe("Anthropic fake: Managed Agents", () => {
  it("an MCP server that no toolset references is a 400, and so is a toolset naming an undeclared server", async () => {
    expect(await status(client.beta.agents.create({ name: "a", model: "claude-sonnet-4-6", mcp_servers: [freeeServer], tools: [] }))).toEqual({
      status: 400,
      message: "mcp_servers: MCP server 'freee' has no mcp_toolset in tools that references it",
    });
    expect((await status(client.beta.agents.create({ name: "a", model: "claude-sonnet-4-6", mcp_servers: [], tools: [freeeToolset] }))).status).toBe(400);
  });

  it("metadata over its limits (17 pairs, a 513-character value, a 65-character key) is a 400", async () => {
    const pairs = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"]));
    for (const metadata of [pairs, { app: "x".repeat(513) }, { ["k".repeat(65)]: "v" }]) {
      expect((await status(client.beta.vaults.create({ display_name: "v", metadata }))).status).toBe(400);
    }
    expect((await client.beta.vaults.create({ display_name: "v", metadata: { app: "x".repeat(512) } })).id).toMatch(/^vlt_/);
  });

  it("a limited network that does not list the MCP host is a 400 at session creation", async () => {
    const { agent, environment } = await agentAndEnv(["api.example.com"]);
    const res = await status(client.beta.sessions.create({ agent: agent.id, environment_id: environment.id }));
    expect(res.status).toBe(400);
    expect(res.message).toContain("abc.lambda-url.ap-northeast-1.on.aws");
    const open = await client.beta.environments.create({ name: "open", config: limitedTo([], true) });
    expect((await client.beta.sessions.create({ agent: agent.id, environment_id: open.id })).id).toMatch(/^sesn_/);
  });

  it("session overrides are held to the same wiring rule", async () => {
    const { agent, environment } = await agentAndEnv();
    const res = await status(client.beta.sessions.create({ agent: { type: "agent_with_overrides", id: agent.id, mcp_servers: [freeeServer], tools: [] } as never, environment_id: environment.id }));
    expect(res.status).toBe(400);
  });

  it("a session given initial_events starts running; one without them is idle", async () => {
    const { agent, environment } = await agentAndEnv();
    const busy = await client.beta.sessions.create({ agent: agent.id, environment_id: environment.id, initial_events: [userMessage] });
    expect(busy.status).toBe("running");
    const quiet = await client.beta.sessions.create({ agent: agent.id, environment_id: environment.id });
    expect(quiet.status).toBe("idle");
  });

  it(`events paginate ${DEFAULT_PAGE_SIZE} at a time by default, with opaque cursors; a limit past the maximum is a 400`, async () => {
    const { agent, environment } = await agentAndEnv();
    fake.scriptNextSession({ polls: [{ events: Array.from({ length: 30 }, (_, i) => ev.agentMessage(`m${i}`)) }] });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: environment.id, initial_events: [userMessage] });
    await client.beta.sessions.retrieve(session.id);
    const firstPage = await client.beta.sessions.events.list(session.id);
    expect(firstPage.data).toHaveLength(DEFAULT_PAGE_SIZE);
    expect(firstPage.next_page).toMatch(/^page_/);
    const all = [];
    for await (const e of client.beta.sessions.events.list(session.id)) all.push(e);
    expect(all).toHaveLength(32); // user.message, status_running, 30 messages
    expect((await status(client.beta.sessions.events.list(session.id, { limit: 1001 }))).status).toBe(400);
    expect((await status(client.beta.sessions.events.list(session.id, { page: "42" }))).status).toBe(400);
  });

  it("Managed Agents endpoints require the managed-agents beta header", async () => {
    const res = await fetch(`${fake.url}/v1/vaults`, { method: "POST", headers: { "x-api-key": fake.apiKey, "anthropic-version": "2023-06-01", "content-type": "application/json" }, body: JSON.stringify({ display_name: "v" }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(MANAGED_AGENTS_BETA);
  });

  it("events cannot be sent to a terminated session", async () => {
    const { agent, environment } = await agentAndEnv();
    fake.scriptNextSession({ polls: [{ events: [ev.sessionError("unknown_error", "terminal"), ev.terminated()] }] });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: environment.id, initial_events: [userMessage] });
    await client.beta.sessions.retrieve(session.id);
    expect((await status(client.beta.sessions.events.send(session.id, { events: [{ type: "user.interrupt" }] }))).status).toBe(400);
  });
});
