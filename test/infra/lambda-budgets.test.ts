import { describe, expect, it } from "vitest";
import { LAMBDA_BUDGETS, lambdaTimeoutSeconds, worstCaseMs, type BudgetedFunction } from "../../infra/lambda-budgets";
import { LAMBDA_RUNTIME_ERRORS } from "../../infra/state-machines/error-table";
import { ANTHROPIC_TIMEOUT_MS } from "../../lib/model/anthropic-client";
import { FREEE_CLIENT_DEFAULTS } from "../../lib/freee/client";
import { LAYER_DEFAULTS } from "../../lib/model/settings";
import { WRITE_CALL_DEFAULTS } from "../../lib/mcp/write-call";
import { synthTemplate } from "./synth";

/**
 * Issue 11: every Lambda's worst-case work fits its timeout. The worst case is computed from the same settings
 * the clients are built from; the synthesized template must give each function at least that.
 */
const { template } = synthTemplate();
const functions = template.findResources("AWS::Lambda::Function");
function timeoutOf(logicalPrefix: string): number {
  const entry = Object.entries(functions).find(([id]) => id.startsWith(logicalPrefix) && id.includes("Function"));
  if (entry === undefined) throw new Error(`no function ${logicalPrefix} in the template`);
  return (entry[1] as { Properties: { Timeout: number } }).Properties.Timeout;
}
const pascal = (fn: string) => fn.split("-").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");

describe("Lambda timeouts are derived from their retry budgets", () => {
  it.each(Object.keys(LAMBDA_BUDGETS) as BudgetedFunction[])("%s: the template's timeout covers its worst case", (fn) => {
    const timeout = timeoutOf(pascal(fn));
    expect(timeout).toBe(lambdaTimeoutSeconds(fn));
    expect(timeout * 1000).toBeGreaterThan(worstCaseMs(fn));
    expect(timeout).toBeLessThanOrEqual(900);
  });

  it("the MCP Lambda can wait out 3 × the longest Retry-After and every 5xx retry of one freee call", () => {
    const f = FREEE_CLIENT_DEFAULTS;
    const rateLimited = (f.maxRateLimitRetries + 1) * f.requestTimeoutMs + f.maxRateLimitRetries * f.maxRetryAfterSeconds * 1000;
    const serverErrors = (f.maxServerRetries + 1) * f.requestTimeoutMs + (1 + 2 + 4) * f.backoffBaseMs;
    expect(worstCaseMs("freee-mcp")).toBeGreaterThan(rateLimited + serverErrors);
    expect(timeoutOf("FreeeMcp")).toBeGreaterThan(180);
  });

  it("a write still in flight is never taken for a dead Lambda's: the in-flight lease outlasts the MCP Lambda", () => {
    expect(lambdaTimeoutSeconds("freee-mcp") * 1000).toBeLessThan(WRITE_CALL_DEFAULTS.inFlightLeaseMs);
    expect(worstCaseMs("freee-mcp")).toBeGreaterThan(2 * WRITE_CALL_DEFAULTS.reconcileBudgetMs + WRITE_CALL_DEFAULTS.reconcileDelayMs);
  });

  it("a poll can make every Managed Agents call it may make, each at the SDK's timeout", () => {
    // retrieve + up to 5 event pages + the last message + interrupt + vault archive
    expect(worstCaseMs("poll-session")).toBeGreaterThanOrEqual(10 * ANTHROPIC_TIMEOUT_MS.agent);
  });

  it("a layer Lambda outlasts its model call's timeout", () => {
    expect(worstCaseMs("generate-prompt")).toBeGreaterThan(LAYER_DEFAULTS.L2.timeoutMs);
    expect(worstCaseMs("analyze-task")).toBeGreaterThan(LAYER_DEFAULTS.L1.timeoutMs);
  });
});

describe("the Lambda's own timeout is a row of the error table", () => {
  it("every Lambda task retries Sandbox.Timedout and Lambda.Unknown with the transient row", () => {
    for (const machine of Object.values(template.findResources("AWS::StepFunctions::StateMachine"))) {
      const definition = JSON.stringify((machine as { Properties: { DefinitionString: unknown } }).Properties.DefinitionString);
      for (const name of LAMBDA_RUNTIME_ERRORS) expect(definition).toContain(name);
    }
  });
});
