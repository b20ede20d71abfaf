import Anthropic from "@anthropic-ai/sdk";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadAgentConfig } from "../../../lib/model/agent/agent-config";
import { ensureAgentSetup, memoizedAgentSetup, type AgentSetupDeps } from "../../../lib/model/agent/agent-setup";
import { createLogger } from "../../../lib/core/observability/logger";
import { Keys } from "../../../lib/store/table";
import { startTestTable, type TestTable } from "../../support/dynamo";
import { startFakeManagedAgents, type FakeAnthropic as FakeManagedAgents } from "../../../dev/fakes/anthropic";
import { UpstreamServerError } from "../../../lib/core/errors/taxonomy";

let fake: FakeManagedAgents;
let table: TestTable;
const logger = createLogger("agent-setup-test");
logger.setLogLevel("SILENT");

beforeEach(async () => {
  fake = await startFakeManagedAgents();
  table = await startTestTable();
});
afterEach(async () => {
  await fake.close();
  await table.close();
});

function deps(env: Record<string, string> = {}): AgentSetupDeps {
  const client = new Anthropic({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
  const config = loadAgentConfig({ MCP_SERVER_URL: "https://abc123.lambda-url.ap-northeast-1.on.aws/mcp", ...env });
  return { client, doc: table.doc, tableName: table.tableName, config, logger };
}

describe("agent + environment created once (Keys.appConfig('managed-agent'))", () => {
  it("creates the pair on first use, stores the ids, and reuses them afterwards", async () => {
    const first = await ensureAgentSetup(deps());
    const again = await ensureAgentSetup(deps());
    expect(again).toEqual(first);
    expect(fake.requestsTo("POST", "/v1/agents")).toHaveLength(1);
    expect(fake.requestsTo("POST", "/v1/environments")).toHaveLength(1);
    const stored = await table.doc.send(new GetCommand({ TableName: table.tableName, Key: Keys.appConfig("managed-agent") }));
    expect(stored.Item).toMatchObject({ agentId: first.agentId, environmentId: first.environmentId });
  });

  it("two concurrent cold starts create exactly one stored pair; the loser archives its own and uses the winner's", async () => {
    // Slow creates so both cold starts read "nothing stored" before either writes.
    fake.delay("POST", "/v1/agents", 100);
    const [a, b] = await Promise.all([memoizedAgentSetup(deps())(), memoizedAgentSetup(deps())()]);
    expect(a).toEqual(b);
    expect(fake.requestsTo("POST", "/v1/agents")).toHaveLength(2);
    const archivedAgents = fake.requestsTo("POST", /^\/v1\/agents\/[^/]+\/archive$/).map((r) => r.path.split("/")[3]);
    const archivedEnvs = fake.requestsTo("POST", /^\/v1\/environments\/[^/]+\/archive$/).map((r) => r.path.split("/")[3]);
    expect(archivedAgents).toHaveLength(1);
    expect(archivedEnvs).toHaveLength(1);
    expect(archivedAgents).not.toContain(a.agentId);
    expect(archivedEnvs).not.toContain(a.environmentId);
    const stored = await table.doc.send(new GetCommand({ TableName: table.tableName, Key: Keys.appConfig("managed-agent") }));
    expect(stored.Item?.agentId).toBe(a.agentId);
  });

  it("the environment's network allows the MCP host only", async () => {
    await ensureAgentSetup(deps());
    const body = fake.requestsTo("POST", "/v1/environments")[0]?.body as Record<string, any>;
    expect(body.config).toEqual({
      type: "cloud",
      networking: {
        type: "limited",
        allowed_hosts: ["abc123.lambda-url.ap-northeast-1.on.aws"],
        allow_mcp_servers: false,
        allow_package_managers: false,
      },
    });
  });

  it("the agent has the freee MCP server as a toolset, disabled and always_ask by default", async () => {
    await ensureAgentSetup(deps({ AGENT_MODEL: "claude-haiku-4-5" }));
    const body = fake.requestsTo("POST", "/v1/agents")[0]?.body as Record<string, any>;
    expect(body.model).toBe("claude-haiku-4-5");
    expect(body.mcp_servers).toEqual([{ type: "url", name: "freee", url: "https://abc123.lambda-url.ap-northeast-1.on.aws/mcp" }]);
    expect(body.tools).toEqual([
      { type: "mcp_toolset", mcp_server_name: "freee", default_config: { enabled: false, permission_policy: { type: "always_ask" } } },
    ]);
    expect(body.system).toContain("[step:");
  });

  it("a changed definition (new MCP URL) replaces the stored pair once", async () => {
    const old = await ensureAgentSetup(deps());
    const next = await ensureAgentSetup(deps({ MCP_SERVER_URL: "https://new.example.test/mcp" }));
    expect(next.agentId).not.toBe(old.agentId);
    expect(await ensureAgentSetup(deps({ MCP_SERVER_URL: "https://new.example.test/mcp" }))).toEqual(next);
    expect(fake.requestsTo("POST", "/v1/agents")).toHaveLength(2);
  });

  it("an API failure while creating leaves nothing stored, archives the half-made pair and is classified", async () => {
    fake.failNext({ method: "POST", path: "/v1/agents", status: 500 });
    await expect(ensureAgentSetup(deps())).rejects.toBeInstanceOf(UpstreamServerError);
    expect(fake.requestsTo("POST", /^\/v1\/environments\/[^/]+\/archive$/)).toHaveLength(1);
    const stored = await table.doc.send(new GetCommand({ TableName: table.tableName, Key: Keys.appConfig("managed-agent") }));
    expect(stored.Item).toBeUndefined();
    // The memo forgets a failure: the next call tries again.
    const memo = memoizedAgentSetup(deps());
    await expect(memo()).resolves.toMatchObject({ agentId: expect.stringMatching(/^agent_/) });
  });
});
