import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, startFakeFreee, type FakeFreee } from "../../dev/fakes/freee/fake-freee";
import { FreeeClient } from "../../lib/freee/client";
import { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { PendingTokenStore } from "../../lib/store/pending-freee-tokens";
import { LocalTokenCipher } from "../../lib/store/token-cipher";
import { FreeeTokenEndpoint } from "../../lib/freee/token-endpoint";
import { localKey } from "../freee/helpers";
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
  const cipher = new LocalTokenCipher(localKey());
  const connections = new FreeeConnectionStore(table.doc, table.tableName, cipher);
  const pending = new PendingTokenStore(table.doc, table.tableName, cipher);
  const tokenEndpoint = new FreeeTokenEndpoint(fake.url, { clientId: FAKE_CLIENT_ID, clientSecret: FAKE_CLIENT_SECRET });
  return {
    fake,
    table,
    connections,
    client: (teamId = "T1") => new FreeeClient({ teamId, store: connections, pending, tokenEndpoint, apiBaseUrl: fake.url, sleep: async () => {}, maxServerRetries: 0, maxRateLimitRetries: 0 }),
    async connect(teamId = "T1") {
      const pair = fake.issueTokens();
      await connections.save({
        teamId,
        tokens: { ...pair, accessTokenExpiresAt: new Date(Date.now() + 3_600_000).toISOString(), scope: "read write" },
        companyId: 101,
        companyName: "テスト株式会社",
        connectedBy: "U1",
      });
    },
    async close() {
      await fake.stop();
      await table.close();
    },
  };
}
