import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import type { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { startFakeFreee, type FakeFreee, type FakeFreeeOptions } from "../../dev/fakes/freee/fake-freee";
import type { FreeeClientOptions } from "../../lib/freee/client";
import { connect, localKey, makeClient, makeStore, type ClientHarness } from "../freee/helpers";
import { startTestTable, type TestTable } from "./dynamo";

/** One test's freee workspace: the file's table, a fresh strict freee fake, a store with its own key, a connected team. */
export interface FreeeWorkspace {
  table: TestTable;
  fake: FakeFreee;
  key: string;
  store: FreeeConnectionStore;
  teamId: string;
}

export interface FreeeWorkspaceOptions {
  /** Team ids are `<prefix><n>`: distinct per file, so a failure names its file. */
  teamPrefix: string;
  /** Options of each test's fake (a clock the test moves, for instance), read when the test starts. */
  fake?: () => FakeFreeeOptions;
}

/**
 * The freee setup the `.ddb` client tests share, as vitest hooks: one DynamoDB Local table per file; per test a
 * fresh fake, a connection store with a fresh key and a newly connected team, handed to `use` before the test
 * runs; after it, the fake's own response-schema check must have found nothing, and the fake stops.
 */
export function useFreeeWorkspace(options: FreeeWorkspaceOptions, use: (workspace: FreeeWorkspace) => void): void {
  let table: TestTable | undefined;
  let fake: FakeFreee | undefined;
  let team = 0;
  beforeAll(async () => {
    table = await startTestTable();
  });
  afterAll(async () => table?.close());
  beforeEach(async () => {
    if (table === undefined) throw new Error("useFreeeWorkspace: the table did not start");
    fake = await startFakeFreee(options.fake?.() ?? {});
    const key = localKey();
    const store = makeStore(table, key);
    const teamId = `${options.teamPrefix}${++team}`;
    await connect(store, fake, teamId);
    use({ table, fake, key, store, teamId });
  });
  afterEach(async () => {
    const stopping = fake;
    fake = undefined;
    if (stopping === undefined) return;
    try {
      expect(stopping.selfCheckFailures).toEqual([]);
    } finally {
      await stopping.stop();
    }
  });
}

/** A clock the freee fake reads and a client's waits move on, so a test of freee's limits never waits them out. */
export class VirtualClock {
  /** Milliseconds since the epoch; starts at a whole second of the real clock. */
  now = 0;

  /** The fake's options for a test on this clock (useFreeeWorkspace's `fake`), restarting it. */
  readonly fakeOptions = (): FakeFreeeOptions => {
    this.now = Math.floor(Date.now() / 1000) * 1000;
    return { clock: () => this.now };
  };

  /** A client of the workspace on this clock: each wait it takes is recorded and moves the clock on. */
  client(workspace: Pick<FreeeWorkspace, "store" | "fake" | "teamId">, extra: Partial<FreeeClientOptions> = {}): ClientHarness {
    const sleeps: number[] = [];
    const { client } = makeClient(workspace.store, workspace.fake, workspace.teamId, {
      clock: () => new Date(this.now),
      sleep: async (ms) => {
        sleeps.push(ms);
        this.now += ms;
        // Lease polls still yield, so a loser does not spin.
        await new Promise((r) => setTimeout(r, 2));
      },
      leasePollMs: 5,
      ...extra,
    });
    return { client, sleeps };
  }
}
