import { afterAll, beforeAll, expect, it } from "vitest";
import { l1Ok, l2Ok } from "../steps/fixtures";
import { auditActions, historyOf, settled, SlackUser, startE2E, type E2E } from "./support";

/**
 * The approval wait ends visibly: the local stack applies the waitForTaskToken TimeoutSeconds the
 * way AWS does (States.Timeout), here with APPROVAL_TIMEOUT_SECONDS=1.
 */
let e2e: E2E;
beforeAll(async () => {
  process.env.LOG_LEVEL = "SILENT";
  e2e = await startE2E({ APPROVAL_TIMEOUT_SECONDS: "1" });
}, 180_000);
afterAll(async () => e2e?.close());

it("an approval nobody answers expires: version expired, task closed, the card says so", { timeout: 60_000 }, async () => {
  const user = new SlackUser(e2e);
  e2e.anthropic.enqueue(l1Ok(), l2Ok());
  const { ts, taskId } = await user.post("来月から山田さんの基本給を30万円に変更して");
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
