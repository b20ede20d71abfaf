import { describe, expect, it } from "vitest";
import { effectOfStep, FREEE_TOOL_NAMES, isKnownTool, TOOL_SUMMARIES, toolSummary, typedSummaryOf } from "../../../lib/freee/tools/summaries";
import { FREEE_TOOLS, getTool } from "../../../lib/freee/tools/registry";

/**
 * The summaries (what the Slack Lambda knows of the tools) and the registry (what the layers and the MCP server
 * serve and enforce) must say the same of every tool: a tool the card calls a read while the MCP server treats it
 * as a write, or one missing from either side, would show the approver something other than what runs.
 */
describe("the tool summaries", () => {
  it("names exactly the registry's tools", () => {
    expect([...FREEE_TOOL_NAMES].sort()).toEqual(FREEE_TOOLS.map((t) => t.name).sort());
    expect(TOOL_SUMMARIES).toHaveLength(FREEE_TOOL_NAMES.size);
  });

  it.each(FREEE_TOOLS.map((t) => [t.name, t] as const))("%s: the same read/write, operation, method and words as the registry", (name, tool) => {
    const summary = toolSummary(name)!;
    expect({ readOnly: summary.readOnly, operation: summary.operation, method: summary.method }).toEqual({ readOnly: tool.readOnly, operation: tool.operation, method: tool.method });
    // A generic tool's registry entry goes on to list the operations it serves; the cards take the first sentence.
    if (tool.method === undefined) expect(tool.description).toBe(summary.description);
    else expect(tool.description.startsWith(summary.description)).toBe(true);
    expect(effectOfStep({ tool: name })).toBe(tool.readOnly ? "read" : "write");
    expect(getTool(name)).toBe(tool);
  });

  it("a tool it does not know is a write, and not a tool", () => {
    expect(isKnownTool("freee_hr_delete_everything")).toBe(false);
    expect(effectOfStep({ tool: "freee_hr_delete_everything" })).toBe("write");
    expect(isKnownTool("agent_decide")).toBe(true);
    expect(effectOfStep({ tool: "agent_decide" })).toBe("read");
  });
});

describe("typedSummaryOf: what the typed tools and the upload tool are defined from", () => {
  it("a typed tool's summary with its operation; a generic tool (a method, no operation) is refused by name", () => {
    for (const summary of TOOL_SUMMARIES.filter((s) => s.operation !== undefined)) expect(typedSummaryOf(summary.name).operation).toBe(summary.operation);
    const generic = TOOL_SUMMARIES.find((s) => s.operation === undefined);
    expect(generic).toBeDefined();
    expect(() => typedSummaryOf(generic!.name)).toThrow(`gives ${generic!.name} no freee operation`);
  });
});
