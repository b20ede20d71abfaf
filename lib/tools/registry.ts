import { GENERIC_TOOLS } from "./generic-tools";
import { TYPED_TOOLS } from "./typed-tools";
import type { FreeeToolDefinition } from "./define";

export type { FreeeToolDefinition } from "./define";
export { FREEE_API_PATH as FREEE_GET_PATH } from "./generic-tools";

/**
 * The freee tools the MCP server offers — one registry shared by L2 and L3 (which may only plan steps with these
 * names or `agent_decide`), the agent and the MCP server (which serves and enforces them): the typed tools
 * (lib/tools/typed-tools.ts) and the generic ones over every vendored operation (lib/tools/generic-tools.ts).
 */

export const AGENT_DECIDE = "agent_decide" as const;

export const FREEE_TOOLS: readonly FreeeToolDefinition[] = [...TYPED_TOOLS, ...GENERIC_TOOLS];

export type FreeeToolName = string;

export const FREEE_TOOL_NAMES: ReadonlySet<string> = new Set(FREEE_TOOLS.map((t) => t.name));

export function isKnownTool(name: string): boolean {
  return name === AGENT_DECIDE || FREEE_TOOL_NAMES.has(name);
}

export function getTool(name: string): FreeeToolDefinition | undefined {
  return FREEE_TOOLS.find((t) => t.name === name);
}

export function readOnlyToolNames(): string[] {
  return FREEE_TOOLS.filter((t) => t.readOnly).map((t) => t.name);
}

export type StepEffect = "read" | "write";

/**
 * What a step does to freee. The tool decides, not the recorded `effect` (which L3 states and the validator
 * checks): a step naming a write tool is a write step whatever it says, and `agent_decide` only reads.
 */
export function effectOfStep(step: { tool: string }): StepEffect {
  if (step.tool === AGENT_DECIDE) return "read";
  return getTool(step.tool)?.readOnly === true ? "read" : "write";
}

/**
 * The tools a session may use for an approved Process: the tools its steps name, plus the read tools each
 * `agent_decide` step's scope names. Nothing else is enabled (DESIGN §7); the MCP server enforces the finer
 * rules (write input, path prefixes) per call.
 */
export function allowedToolsForSteps(steps: readonly { tool: string; readScope?: { tools: readonly string[] } }[]): string[] {
  const allowed = new Set<string>();
  for (const step of steps) {
    if (step.tool === AGENT_DECIDE) {
      for (const name of step.readScope?.tools ?? []) if (getTool(name)?.readOnly === true) allowed.add(name);
    } else if (FREEE_TOOL_NAMES.has(step.tool)) allowed.add(step.tool);
  }
  return [...allowed].sort();
}
