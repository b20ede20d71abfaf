import { expect, it } from "vitest";
import { l1Ok, l2Ok } from "../steps/fixtures";
import { auditActions, historyOf, PAY_REQUEST, settled, SlackUser, useE2E, type E2E } from "./support";

/**
 * The approval wait ends visibly: the local stack applies the waitForTaskToken TimeoutSeconds the
 * way AWS does (States.Timeout), here with APPROVAL_TIMEOUT_SECONDS=1.
 */
let e2e: E2E;
let user: SlackUser;
useE2E({ APPROVAL_TIMEOUT_SECONDS: "1" }, (started) => ({ e2e, user } = started));

it("an approval nobody answers expires: version expired, task closed, the card says so", { timeout: 60_000 }, async () => {
  e2e.anthropic.enqueue(l1Ok(), l2Ok());
  const { ts, taskId } = await user.post(PAY_REQUEST);
  await user.button(ts, "approve_version", { taskId, kind: "prompt", version: 1 });
  await settled(e2e, taskId);

  const h = await historyOf(e2e, taskId);
  expect(h.prompts.map((p) => p.status)).toEqual(["expired"]);
  expect(h.task.status).toBe("closed");
  expect(auditActions(h).at(-1)).toBe("prompt.approval_expired");
  expect(h.task.closedReason).toBe("approval_expired");
  const card = user.thread(ts).find((m) => m.text.startsWith("実行方針 v1"));
  expect(JSON.stringify(card?.blocks)).not.toContain("approve_version");
});
