import { GENERIC_TOOLS } from "./generic-tools";
import { TYPED_TOOLS } from "./typed-tools";
import type { FreeeToolDefinition } from "./define";

export type { FreeeToolDefinition } from "./define";
export { FREEE_API_PATH as FREEE_GET_PATH } from "./generic-tools";

/**
 * The freee tools the MCP server offers, with their input schemas and validators — shared by L2 and L3 (which may
 * only plan steps with these names or `agent_decide`), the agent and the MCP server (which serves and enforces
 * them): the typed tools (lib/freee/tools/typed-tools.ts) and the generic ones over every vendored operation
 * (lib/freee/tools/generic-tools.ts). What a tool is without its schema (name, description, read or write) is
 * lib/freee/tools/summaries.ts, which is what the Slack Lambda and the allow-lists use.
 */

export const FREEE_TOOLS: readonly FreeeToolDefinition[] = [...TYPED_TOOLS, ...GENERIC_TOOLS];

const BY_NAME: ReadonlyMap<string, FreeeToolDefinition> = new Map(FREEE_TOOLS.map((t) => [t.name, t]));

export function getTool(name: string): FreeeToolDefinition | undefined {
  return BY_NAME.get(name);
}
