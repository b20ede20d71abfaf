import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorNames, FatalConfigError, RecordNotFoundError, ThrottledError } from "../../lib/core/errors/taxonomy";
import { classifyAwsError } from "../../lib/core/errors/classify";
import { TaskStore } from "../../lib/store/task-store";
import { startTestTable, type TestTable } from "../support/dynamo";

// DB errors (DB エラーハンドリング), row by row, on DynamoDB's wire protocol.
let table: TestTable;
let store: TaskStore;
beforeAll(async () => {
  table = await startTestTable();
  store = new TaskStore(table.doc, table.tableName);
});
afterAll(async () => table.close());

describe("DB errors", () => {
  it("OperationalError (ロック): DynamoDB throttling is ThrottledError, which the state machines retry", () => {
    const err = classifyAwsError(Object.assign(new Error("slow down"), { name: "ProvisionedThroughputExceededException" }));
    expect(err).toBeInstanceOf(ThrottledError);
    expect(ErrorNames.transient).toContain("ThrottledError");
  });

  it("IntegrityError (FK 違反): a version for a task that does not exist is refused and nothing is stored", async () => {
    await expect(store.createVersion("prompt", "no-such-task", 1)).rejects.toBeInstanceOf(RecordNotFoundError);
    expect(await store.getVersion("prompt", "no-such-task", 1)).toBeUndefined();
  });

  it("IntegrityError (UNIQUE 違反): 冪等性チェック — the existing record is returned", async () => {
    const input = { thread: { teamId: "T8", channelId: "C8", messageTs: "1700000008.000001" }, requesterId: "U1", requestText: "依頼", pipelineExecutionName: "n" };
    const first = await store.createTask(input);
    const again = await store.createTask({ ...input, requestText: "別の本文" });
    expect(again.applied).toBe(false);
    expect(again.record).toEqual(first.record);
  });

  it("マイグレーション失敗 (起動時に即失敗): a missing table is FatalConfigError, not a retry", async () => {
    const missing = new TaskStore(table.doc, "no-such-table");
    const err = await missing.getTask("x").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FatalConfigError);
    expect(ErrorNames.noRetry).toContain("FatalConfigError");
  });
});
