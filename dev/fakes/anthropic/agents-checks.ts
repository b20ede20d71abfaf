import type { ApiError } from "./messages";

/**
 * What the Managed Agents API refuses with a 400, for the bodies the project sends (shapes and limits from the
 * doc comments of @anthropic-ai/sdk's beta agents / environments / vaults / sessions types, and the rules of
 * the platform docs the project relies on: every declared MCP server has a matching `mcp_toolset` and every
 * toolset names a declared server; a limited network reaches an MCP server only through `allowed_hosts` or
 * `allow_mcp_servers`).
 */

const invalid = (message: string): ApiError => ({ status: 400, type: "invalid_request_error", message });

type Body = Record<string, any>;

/** "Maximum 16 pairs, keys up to 64 chars, values up to 512 chars." */
export function checkMetadata(metadata: unknown, where = "metadata"): ApiError | undefined {
  if (metadata === undefined || metadata === null) return undefined;
  if (typeof metadata !== "object" || Array.isArray(metadata)) return invalid(`${where}: Input should be an object`);
  const entries = Object.entries(metadata as Record<string, unknown>);
  if (entries.length > 16) return invalid(`${where}: at most 16 key-value pairs are allowed (got ${entries.length})`);
  for (const [key, value] of entries) {
    if (key.length === 0 || key.length > 64) return invalid(`${where}: key '${key.slice(0, 70)}' must be 1 to 64 characters`);
    if (typeof value !== "string") return invalid(`${where}.${key}: Input should be a valid string`);
    if (value.length > 512) return invalid(`${where}.${key}: value must be at most 512 characters`);
  }
  return undefined;
}

function length(value: unknown, where: string, min: number, max: number, required: boolean): ApiError | undefined {
  if (value === undefined || value === null) return required ? invalid(`${where}: Field required`) : undefined;
  if (typeof value !== "string") return invalid(`${where}: Input should be a valid string`);
  if (value.length < min || value.length > max) return invalid(`${where}: must be ${min} to ${max} characters`);
  return undefined;
}

/** MCP servers and toolsets must pair up, by name (agents.create, and a session's agent overrides). */
export function checkMcpWiring(mcpServers: unknown, tools: unknown, where: string): ApiError | undefined {
  const servers = (Array.isArray(mcpServers) ? mcpServers : []) as Body[];
  if (servers.length > 20) return invalid(`${where}mcp_servers: at most 20 MCP servers are allowed`);
  const names = servers.map((s) => s.name);
  if (new Set(names).size !== names.length) return invalid(`${where}mcp_servers: names must be unique`);
  for (const [i, s] of servers.entries()) {
    if (s.type !== "url") return invalid(`${where}mcp_servers.${i}.type: Input should be 'url'`);
    if (typeof s.name !== "string" || s.name === "") return invalid(`${where}mcp_servers.${i}.name: Field required`);
    try {
      new URL(String(s.url));
    } catch (err) {
      if (!(err instanceof TypeError)) throw err;
      return invalid(`${where}mcp_servers.${i}.url: Input should be a valid URL`);
    }
  }
  const toolsets = ((Array.isArray(tools) ? tools : []) as Body[]).filter((t) => t.type === "mcp_toolset");
  if (Array.isArray(tools) && tools.length > 256) return invalid(`${where}tools: at most 256 tools are allowed`);
  for (const [i, t] of toolsets.entries()) {
    if (!names.includes(t.mcp_server_name)) return invalid(`${where}tools.${i}: mcp_toolset references MCP server '${String(t.mcp_server_name)}', which is not declared in mcp_servers`);
    for (const [j, c] of ((t.configs ?? []) as Body[]).entries()) {
      const bad = length(c.name, `${where}tools.${i}.configs.${j}.name`, 1, 128, true);
      if (bad !== undefined) return bad;
    }
  }
  for (const name of names) {
    if (!toolsets.some((t) => t.mcp_server_name === name)) return invalid(`${where}mcp_servers: MCP server '${String(name)}' has no mcp_toolset in tools that references it`);
  }
  return undefined;
}

export function checkAgentCreate(b: Body): ApiError | undefined {
  return (
    length(b.name, "name", 1, 256, true) ??
    (b.model === undefined ? invalid("model: Field required") : undefined) ??
    length(b.system, "system", 0, 100_000, false) ??
    length(b.description, "description", 0, 2048, false) ??
    checkMetadata(b.metadata) ??
    checkMcpWiring(b.mcp_servers, b.tools, "")
  );
}

export function checkEnvironmentCreate(b: Body): ApiError | undefined {
  const bad = length(b.name, "name", 1, 256, true) ?? checkMetadata(b.metadata);
  if (bad !== undefined) return bad;
  const config = (b.config ?? {}) as Body;
  if (config.type !== undefined && config.type !== "cloud") return invalid("config.type: Input should be 'cloud'");
  const net = config.networking as Body | undefined;
  if (net !== undefined && net.type !== "unrestricted" && net.type !== "limited") return invalid("config.networking.type: Input should be 'unrestricted' or 'limited'");
  if (net?.type === "limited" && net.allowed_hosts !== undefined && net.allowed_hosts !== null && !Array.isArray(net.allowed_hosts)) {
    return invalid("config.networking.allowed_hosts: Input should be a valid list");
  }
  if (net?.type === "limited" && config.packages !== undefined && net.allow_package_managers !== true) {
    return invalid("config.networking.allow_package_managers: must be true when packages are specified");
  }
  return undefined;
}

export function checkVaultCreate(b: Body): ApiError | undefined {
  return length(b.display_name, "display_name", 1, 255, true) ?? checkMetadata(b.metadata);
}

export function checkCredentialCreate(b: Body): ApiError | undefined {
  const bad = length(b.display_name, "display_name", 0, 255, false) ?? checkMetadata(b.metadata);
  if (bad !== undefined) return bad;
  const auth = (b.auth ?? {}) as Body;
  if (auth.type !== "static_bearer" && auth.type !== "mcp_oauth") return invalid("auth.type: Input should be 'static_bearer' or 'mcp_oauth'");
  if (auth.type === "static_bearer" && (typeof auth.token !== "string" || auth.token === "")) return invalid("auth.token: Field required");
  if (typeof auth.mcp_server_url !== "string") return invalid("auth.mcp_server_url: Field required");
  return undefined;
}

/**
 * A session's own checks: metadata, at most 50 initial events of the kinds allowed at creation, the agent's MCP
 * wiring after overrides, and that the environment's network reaches every MCP server the session would use.
 */
export function checkSessionCreate(b: Body, agent: Body, environment: Body): ApiError | undefined {
  const bad = checkMetadata(b.metadata) ?? length(b.title ?? undefined, "title", 0, 1000, false);
  if (bad !== undefined) return bad;
  const initial = (b.initial_events ?? []) as Body[];
  if (!Array.isArray(initial)) return invalid("initial_events: Input should be a valid list");
  if (initial.length > 50) return invalid("initial_events: at most 50 events are allowed");
  for (const [i, e] of initial.entries()) {
    if (e.type !== "user.message" && e.type !== "user.define_outcome") return invalid(`initial_events.${i}.type: Input should be 'user.message' or 'user.define_outcome'`);
    if (e.type === "user.message" && (!Array.isArray(e.content) || e.content.length === 0)) return invalid(`initial_events.${i}.content: Field required`);
  }
  const overrides = typeof b.agent === "object" && b.agent !== null ? (b.agent as Body) : {};
  const servers = (overrides.mcp_servers ?? agent.mcp_servers ?? []) as Body[];
  const tools = overrides.tools ?? agent.tools ?? [];
  const wiring = checkMcpWiring(servers, tools, "agent.");
  if (wiring !== undefined) return wiring;
  const net = ((environment.config ?? {}) as Body).networking as Body | undefined;
  if (net?.type === "limited" && net.allow_mcp_servers !== true) {
    const allowed = (net.allowed_hosts ?? []) as string[];
    for (const s of servers) {
      const url = new URL(String(s.url));
      const host = url.host;
      if (![host, url.hostname, `https://${host}`].some((h) => allowed.includes(h))) {
        return invalid(`environment ${String(environment.id)}: its limited network allows neither MCP servers nor the host '${host}' of MCP server '${String(s.name)}' (add it to allowed_hosts or set allow_mcp_servers)`);
      }
    }
  }
  return undefined;
}
