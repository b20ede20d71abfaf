import { afterAll, beforeAll } from "vitest";
import type { SlackThread } from "../../lib/core/domain/records";
import { TaskStore } from "../../lib/store/task-store";
import { startTestTable, type TestTable } from "../support/dynamo";

/** A TaskStore over a fresh table (on the run's DynamoDB Local) for one test file. */
export function useStore() {
  const fixture = { table: undefined as unknown as TestTable, store: undefined as unknown as TaskStore, thread, newTask, nextSeq };
  let seq = 0;
  function nextSeq(): number {
    seq += 1;
    return seq;
  }
  function thread(team = "T1"): SlackThread {
    return { teamId: team, channelId: "C1", messageTs: `1700000000.${String(nextSeq()).padStart(6, "0")}` };
  }
  async function newTask(team = "T1") {
    const { record } = await fixture.store.createTask({ thread: thread(team), requesterId: "U1", requestText: "来月から山田さんの基本給を30万円に変更して", pipelineExecutionName: "n" });
    return record;
  }
  beforeAll(async () => {
    fixture.table = await startTestTable();
    fixture.store = new TaskStore(fixture.table.doc, fixture.table.tableName);
  });
  afterAll(async () => fixture.table.close());
  return fixture;
}
