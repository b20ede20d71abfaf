import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFaultProxy, type FaultProxy } from "../../dev/chaos/fault-proxy";
import type { ProcessStep } from "../../lib/core/domain/records";
import { writeMarker } from "../../lib/freee/write-reconciler";
import { WRITE_CALL_DEFAULTS } from "../../lib/mcp/write-call";
import { testDynamoEndpoint } from "../support/dynamo";
import { startMcpStack, text, type McpStack } from "./stack";

/**
 * A write freee took is recorded done even when the table throttles the ledger's completion write (adversarial:
 * the lost ledger completion). The server's ledger calls go through a DynamoDB fault proxy that answers the
 * completion's UpdateItem with ProvisionedThroughputExceededException, as DynamoDB does; freee answers 2xx.
 * - a throttle that passes: the server retries with backoff, the step is done, freee saw one POST;
 * - a throttle that outlasts every retry: the agent is told freee took it, the item stays in_flight (never
 *   released, never "not written"), the loss is audited, and the next call settles it by reading back — the
 *   deal is found by its 管理番号, nothing is sent twice.
 */
let stack: McpStack;
let proxy: FaultProxy;
beforeAll(async () => {
  proxy = await startFaultProxy({ dependency: "DynamoDB", target: testDynamoEndpoint(), phases: () => [] });
  // A lease of 0: a write left in_flight is settled by the very next call (read back), as after a lost Lambda.
  stack = await startMcpStack({ ledgerEndpoint: proxy.url, inFlightLeaseMs: 0 });
});
afterAll(async () => {
  await stack.close();
  await proxy.close();
});

const DEAL = { issue_date: "2026-12-03", type: "expense", details: [{ account_item_id: 21, tax_code: 136, amount: 4800000 }] };
const STEPS: ProcessStep[] = [{ stepId: "s1", order: 1, tool: "freee_accounting_create_deal", effect: "write", toolInput: DEAL }];
const createDeal = { name: "freee_accounting_create_deal", arguments: DEAL };

/** The ledger's completion write of a step: an UpdateItem on its WRITE# item that sets the state to done. */
const isCompletion = (body: string) => body.includes('"WRITE#') && body.includes('":done"');

function throttleCompletions(times: number): () => number {
  const before = proxy.hits.length;
  proxy.arm({ when: (r) => (r.headers["x-amz-target"] ?? "").endsWith(".UpdateItem") && isCompletion(r.body), kind: "throttle", times });
  return () => proxy.hits.length - before;
}

async function run() {
  const { taskId, bearer } = await stack.newExecution(STEPS);
  const ref = { taskId, processVersion: 1, stepId: "s1" };
  const marker = writeMarker(ref);
  return {
    ref,
    taskId,
    agent: await stack.agent(bearer),
    posts: () => stack.fake.apiRequests("/api/1/deals").filter((r) => r.method === "POST" && (r.body as { ref_number?: string }).ref_number === marker).length,
    deals: () => stack.dealsWithRef(marker).length,
  };
}

describe("adversarial: the ledger's completion write is throttled after freee answered 2xx", () => {
  it("a throttle that passes: retried with backoff, the step is done (written), one POST", async () => {
    const r = await run();
    const waitsBefore = stack.reconcileWaits.length;
    // Two whole completion attempts fail (the SDK sends each twice).
    const hits = throttleCompletions(4);
    const result = await r.agent.callTool(createDeal);
    expect(result.isError).toBeFalsy();
    expect(hits()).toBe(4);
    expect(await stack.ledger.get(r.ref)).toMatchObject({ state: "done", how: "written" });
    expect(stack.reconcileWaits.slice(waitsBefore)).toEqual([WRITE_CALL_DEFAULTS.ledgerBackoffMs, 2 * WRITE_CALL_DEFAULTS.ledgerBackoffMs]);
    expect(r.posts()).toBe(1);
    expect((await stack.audit(r.taskId)).map((a) => a.action)).not.toContain("freee.write_unrecorded");
  });

  it("a throttle that outlasts every retry: never reported as not written; the next call reads back and finds it, nothing sent twice", async () => {
    const r = await run();
    const hits = throttleCompletions(2 * WRITE_CALL_DEFAULTS.ledgerAttempts);
    const first = await r.agent.callTool(createDeal);
    // freee took it: the agent is told so (freee's answer), not that it failed.
    expect(first.isError).toBeFalsy();
    expect(text(first)).toContain('"deal"');
    expect(hits()).toBe(2 * WRITE_CALL_DEFAULTS.ledgerAttempts);
    // Kept in_flight (what the completion contract and the card read as "may have been written"), never released.
    expect(await stack.ledger.get(r.ref)).toMatchObject({ state: "in_flight" });
    const unrecorded = (await stack.audit(r.taskId)).filter((a) => a.action === "freee.write_unrecorded");
    expect(unrecorded).toHaveLength(1);
    expect(unrecorded[0]!.details).toMatchObject({ stepId: "s1", attempts: WRITE_CALL_DEFAULTS.ledgerAttempts, errorType: "ThrottledError" });

    // The agent tries again: the write is settled by reading back, not sent again.
    const again = await r.agent.callTool(createDeal);
    expect(again.isError).toBeFalsy();
    expect(text(again)).toContain("読み戻して確認しました");
    expect(await stack.ledger.get(r.ref)).toMatchObject({ state: "done", how: "reconciled" });
    expect(r.posts()).toBe(1);
    expect(r.deals()).toBe(1);
  });
});
