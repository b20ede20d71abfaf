import { afterAll, beforeAll, expect, it } from "vitest";
import { approve } from "../../lib/ingress/actions";
import { FreeeCompanyChangedMessages } from "../../lib/core/messages/ja";
import { createLogger } from "../../lib/core/observability/logger";
import { createPlanInvalidator } from "../../lib/freee/plan-invalidation";
import { startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { decide, l1Ok, l2Ok, l3Ok, slackTexts } from "./fixtures";

/**
 * Adversarial: the admin reconnects freee to another company while a plan previewed against the old one waits for
 * approval (the sweep the freee callback runs, lib/freee/plan-invalidation.ts, over the local TaskPipeline). The
 * wait ends with FreeeCompanyChangedError, the pipeline's one failure path records it (task failed, error.L3,
 * counted), the card says the plan must be previewed again, and a later 承認 is refused: no run ever starts.
 * The HTTP path (the callback, then a signed click) is test/ingress/company-switch.test.ts.
 */
let h: PipelineHarness;
beforeAll(async () => {
  h = await startPipelineHarness();
});
afterAll(async () => h.close());

it("a plan awaiting approval when freee switches company ends failed, unapprovable, with nothing run", async () => {
  h.anthropic.enqueue(l1Ok(), l2Ok(), l3Ok());
  const { execution, taskId } = h.startTask();
  await decide(h, taskId, "prompt", 1, "approve");
  await h.local.waitFor(() => h.local.pendingTokens().find((p) => p.executionName === taskId && p.stateName === "AwaitProcessApproval"), 10_000, "process approval");
  const previewed = await h.store.getVersionOrThrow("process", taskId, 1);
  expect(previewed.kind === "process" ? previewed.preview?.company?.id : undefined).toBe(101);

  const invalidate = createPlanInvalidator({ doc: h.table.doc, tableName: h.table.tableName, audit: h.actions.audit, sfn: h.actions.sfn, cards: h.actions.cards, log: createLogger("switch") });
  const plans = await invalidate("T0001", 202, "UADMIN");
  expect(plans.map((p) => [p.taskId, p.version, p.approvedCompanyId])).toEqual([[taskId, 1, 101]]);
  await execution.done;

  const history = await h.store.loadHistory(taskId);
  expect(history.task.status).toBe("failed");
  expect(history.task.failure).toMatchObject({ layer: "L3", errorName: "FreeeCompanyChangedError" });
  expect(history.audit.filter((a) => a.action === "error.L3").map((a) => a.errorType)).toEqual(["FreeeCompanyChangedError"]);
  expect(history.audit.some((a) => a.action === "process.invalidated")).toBe(true);
  expect(slackTexts(h).some((t) => t.includes(FreeeCompanyChangedMessages.invalidated))).toBe(true);
  // The requester's 承認 on the card they still had open: refused, and no ExecutionRun ever exists.
  const late = await approve(h.actions, h.actor, { taskId, kind: "process", version: 1 });
  expect(late).toEqual({ outcome: "refused", message: FreeeCompanyChangedMessages.invalidated });
  expect(h.local.execution("ExecutionRun", `${taskId}-e1`)).toBeUndefined();
  expect((await h.store.getTaskOrThrow(taskId)).executionCount).toBe(0);
});
