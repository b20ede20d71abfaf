import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { FreeeClient } from "../../lib/freee/client";
import type { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { FreeeTokenEndpoint } from "../../lib/freee/token-endpoint";
import { connect, makeStore, pendingOf } from "../freee/helpers";
import { startTestTable, type TestTable } from "../support/dynamo";

/** The strict freee fake, a table with the workspace's connection, and the FreeeClient the preview reads with. */
export interface PreviewFreee {
  fake: FakeFreee;
  table: TestTable;
  connections: FreeeConnectionStore;
  client(teamId?: string): FreeeClient;
  connect(teamId?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startPreviewFreee(): Promise<PreviewFreee> {
  process.env.LOG_LEVEL ??= "SILENT";
  const [fake, table] = await Promise.all([startFakeFreee(), startTestTable()]);
  const connections = makeStore(table);
  const tokenEndpoint = new FreeeTokenEndpoint(fake.url, { clientId: FAKE_CLIENT_ID, clientSecret: FAKE_CLIENT_SECRET });
  return {
    fake,
    table,
    connections,
    client: (teamId = "T1") => new FreeeClient({ teamId, store: connections, pending: pendingOf(connections), tokenEndpoint, apiBaseUrl: fake.url, sleep: async () => {}, maxServerRetries: 0, maxRateLimitRetries: 0 }),
    async connect(teamId = "T1") {
      await connect(connections, fake, teamId);
    },
    async close() {
      await fake.stop();
      await table.close();
    },
  };
}

/**
 * The file's preview freee, as vitest hooks: started with workspace T1 connected before the file's tests, and
 * after each test the fake's own response-schema check must have found nothing. Use it at a file's top level;
 * its fields are read when a test runs.
 */
export function usePreviewFreee(): PreviewFreee {
  let started: PreviewFreee | undefined;
  const get = () => {
    if (started === undefined) throw new Error("usePreviewFreee: the preview freee did not start");
    return started;
  };
  beforeAll(async () => {
    started = await startPreviewFreee();
    await started.connect();
  });
  afterEach(() => expect(get().fake.selfCheckFailures).toEqual([]));
  afterAll(async () => started?.close());
  return {
    get fake() {
      return get().fake;
    },
    get table() {
      return get().table;
    },
    get connections() {
      return get().connections;
    },
    client: (teamId) => get().client(teamId),
    connect: (teamId) => get().connect(teamId),
    close: () => get().close(),
  };
}
