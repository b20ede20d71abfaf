import type { Context } from "aws-lambda";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as z from "zod/mini";
import { taskIdFor } from "../../../lib/core/domain/records";
import { createLogger } from "../../../lib/core/observability/logger";
import { defineStep } from "../../../lib/steps/step-handler";
import type { PipelineDeps } from "../../../lib/steps/ports";

// What CloudWatch receives: the JSON lines Powertools writes to stdout.
function captureLines(): { lines: () => Record<string, unknown>[] } {
  const written: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  return { lines: () => written.flatMap((w) => w.split("\n")).filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

function lambdaContext(requestId: string): Context {
  return {
    awsRequestId: requestId,
    functionName: "generate-prompt",
    functionVersion: "$LATEST",
    invokedFunctionArn: "arn:aws:lambda:ap-northeast-1:123456789012:function:generate-prompt",
    memoryLimitInMB: "512",
    getRemainingTimeInMillis: () => 10_000,
  } as unknown as Context;
}

afterEach(() => vi.restoreAllMocks());

describe("a step's log lines carry the Lambda context and the task, not by hand", () => {
  const log = createLogger("generate-prompt");
  const step = defineStep({
    service: "generate-prompt",
    needs: {},
    wire: () => Promise.reject(new Error("this test gives the step its deps (withDeps)")),
    schema: z.object({ taskId: z.optional(z.string()), executionNo: z.optional(z.int()), thread: z.optional(z.object({ teamId: z.string(), channelId: z.string(), messageTs: z.string() })) }),
    run: async (deps) => {
      deps.log.info("step ran");
      // A logger made during the invocation (a client built on first use) carries the same keys.
      createLogger("late").info("late logger");
      return "ok";
    },
  }).withDeps({ log } as unknown as PipelineDeps);

  it("request id, cold start (only the first invocation), task id and execution number; nothing of the last invocation stays", async () => {
    const out = captureLines();
    await step({ taskId: "T1-C1-1700000000_000001", executionNo: 2 }, lambdaContext("req-1"));
    const thread = { teamId: "T1", channelId: "C1", messageTs: "1700000000.000002" };
    await step({ thread }, lambdaContext("req-2"));
    const lines = out.lines();
    expect(lines.map((l) => [l.message, l.function_request_id, l.cold_start, l.taskId, l.executionNo])).toEqual([
      ["step ran", "req-1", true, "T1-C1-1700000000_000001", 2],
      ["late logger", "req-1", true, "T1-C1-1700000000_000001", 2],
      // L1's input has no task id yet: the one its thread derives.
      ["step ran", "req-2", false, taskIdFor(thread), undefined],
      ["late logger", "req-2", false, taskIdFor(thread), undefined],
    ]);
    expect(lines[0]).toMatchObject({ function_name: "generate-prompt", service: "generate-prompt" });
  });
});
