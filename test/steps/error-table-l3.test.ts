import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SlackMessages } from "../../lib/core/messages/ja";
import { errorReply, jsonReply, messageReply } from "../../dev/fakes/anthropic";
import { entriesOf, retriesOf, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { L3_STEPS, decide, expectPipelineFailure, l1Ok, l2Ok, l3Ok } from "./fixtures";

/**
 * Error table conformance, L3: a malformed Process is retried once WITH the validation error in
 * the prompt — the Catch → RetryProcessWithError loop of the synthesized TaskPipeline — then caught.
 */
let h: PipelineHarness;
beforeAll(async () => {
  h = await startPipelineHarness();
});
afterAll(async () => h.close());
beforeEach(() => {
  h.slack.reset();
  h.anthropic.requests.length = 0;
});

/** L1 + L2 answered and the Prompt approved; the next L3 replies are the test's. */
async function untilL3(...l3Replies: Parameters<typeof h.anthropic.enqueue>) {
  h.anthropic.enqueue(l1Ok(), l2Ok(), ...l3Replies);
  const started = h.startTask();
  await decide(h, started.taskId, "prompt", 1, "approve");
  return started;
}

const l3Requests = () => h.anthropic.requests.filter((r) => JSON.stringify(r.body.messages).includes("approved_prompt"));
const l3Failure = (errorName: string, retries = 0, attempts = retries + 1) =>
  ({ state: "GenerateProcess", retries, attempts, errorName, layer: "L3", message: SlackMessages.l3Failed, version: { kind: "process", version: 1 } }) as const;

describe("L3: Prompt → Process", () => {
  for (const [row, reply, messagePart] of [
    ["JSON パースエラー", () => messageReply('{"steps": [{"stepId": "s1",'), "JSON"],
    ["steps キー欠落", () => jsonReply({ plan: L3_STEPS }), "steps key missing"],
    ["不正な tool 名", () => jsonReply({ steps: [{ ...L3_STEPS[0], tool: "freee_delete_everything" }] }), "Unknown tool: freee_delete_everything"],
    ["steps が空配列", () => jsonReply({ steps: [] }), "steps array is empty"],
  ] as const) {
    it(`${row}: retried once with the validation error in the prompt, then caught`, async () => {
      const { execution, taskId } = await untilL3(reply(), reply());
      await expectPipelineFailure(h, execution, taskId, l3Failure("MalformedOutputError", 0, 2));
      // The retry is the Catch loop, not a Retry row: the state is entered twice, never "retried".
      expect(entriesOf(execution, "GenerateProcess")).toBe(2);
      expect(entriesOf(execution, "RetryProcessWithError")).toBe(1);
      expect(entriesOf(execution, "L3MalformedAfterRetry")).toBe(1);
      const requests = l3Requests();
      expect(requests).toHaveLength(2);
      expect(JSON.stringify(requests[0]!.body.messages)).not.toContain("validation_error");
      expect(JSON.stringify(requests[1]!.body.messages)).toContain("validation_error");
      expect(JSON.stringify(requests[1]!.body.messages)).toContain(messagePart);
    });
  }

  it("不正な tool 名 → エラーを含めてリトライ → a corrected reply goes on to the approval", async () => {
    const { execution, taskId } = await untilL3(jsonReply({ steps: [{ ...L3_STEPS[0], tool: "freee_unknown" }] }), l3Ok());
    const token = await h.local.waitForToken(taskId, "AwaitProcessApproval");
    const process = await h.store.getVersionOrThrow("process", taskId, 1);
    expect(process.status).toBe("pending_approval");
    expect(process.steps?.map((s) => s.tool)).toEqual(["freee_hr_list_employees", "agent_decide"]);
    expect(JSON.stringify(l3Requests()[1]!.body.messages)).toContain("Unknown tool: freee_unknown");
    const task = await h.store.getTaskOrThrow(taskId);
    expect(task.status).toBe("process_review");
    h.local.timeOutTask(token.token);
    await execution.done;
  });

  it("a write step freee's schema refuses (an ISO 8601 attendance time) → the schema's error goes into the retry → the corrected plan is approved", async () => {
    const segment = (clock_in_at: string) => ({ employee_id: 1, date: "2026-12-03", work_record_segments: [{ clock_in_at, clock_out_at: "2026-12-03 18:00:00" }] });
    const plan = (clockIn: string) => jsonReply({ steps: [{ ...L3_STEPS[0] }, { stepId: "s2", order: 2, tool: "freee_hr_update_work_record", effect: "write", toolInput: JSON.stringify(segment(clockIn)), nameRefs: [] }] });
    const { execution, taskId } = await untilL3(plan("2026-12-03T09:00:00+09:00"), plan("2026-12-03 09:00:00"));
    const token = await h.local.waitForToken(taskId, "AwaitProcessApproval");
    expect(entriesOf(execution, "RetryProcessWithError")).toBe(1);
    const retry = JSON.stringify(l3Requests()[1]!.body.messages);
    expect(retry).toContain("validation_error");
    expect(retry).toContain("work_record_segments.0.clock_in_at の形式が不正です");
    const process = await h.store.getVersionOrThrow("process", taskId, 1);
    expect(process.status).toBe("pending_approval");
    expect(process.steps?.[1]?.toolInput).toEqual(segment("2026-12-03 09:00:00"));
    h.local.timeOutTask(token.token);
    await execution.done;
  });

  it("a generic write to a path that is no freee operation is retried with that error, then caught", async () => {
    const bad = () => jsonReply({ steps: [{ stepId: "s1", order: 1, tool: "freee_api_post", effect: "write", toolInput: JSON.stringify({ path: "/api/1/invoices", body: {} }), nameRefs: [] }] });
    const { execution, taskId } = await untilL3(bad(), bad());
    await expectPipelineFailure(h, execution, taskId, l3Failure("MalformedOutputError", 0, 2));
    expect(JSON.stringify(l3Requests()[1]!.body.messages)).toContain("POST /api/1/invoices は freee API の操作ではありません");
  });

  it("Anthropic API エラー (529 overloaded): transient row, 3 retries, then caught", async () => {
    const overloaded = () => errorReply(529, "overloaded_error", "overloaded");
    const { execution, taskId } = await untilL3(overloaded(), overloaded(), overloaded(), overloaded());
    await expectPipelineFailure(h, execution, taskId, l3Failure("UpstreamServerError", 3));
    expect(retriesOf(execution, "GenerateProcess")).toBe(3);
  });

  it("refusal at L3: caught without retry", async () => {
    const { execution, taskId } = await untilL3(messageReply({ texts: [], stopReason: "refusal" }));
    await expectPipelineFailure(h, execution, taskId, l3Failure("RefusedResponseError"));
  });
});
