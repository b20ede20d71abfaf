import { afterAll, beforeAll, expect, it } from "vitest";
import { startCountingDynamo, type CountingDynamo } from "../../bench/dynamo";
import { LocalTokenCipher } from "../../lib/store/token-cipher";
import { DynamoInstallationStore } from "../../lib/store/installations";
import { createDocumentClient } from "../../lib/store/dynamo-client";
import { testDynamoEndpoint, uniqueTableName } from "../support/dynamo";

// The ingress's installation cache (lib/store/installations.ts, cacheTtlMs): the improvement the bench
// measured. Requests are counted at the bench's proxy in front of DynamoDB Local, as the bench counts them.
let dynamo: CountingDynamo;
const table = uniqueTableName("cache");
beforeAll(async () => {
  dynamo = await startCountingDynamo(testDynamoEndpoint());
  await dynamo.createTable(table);
});
afterAll(async () => dynamo.close());
const cipher = new LocalTokenCipher(Buffer.alloc(32, 7).toString("base64"));

function installation(teamId: string, token: string) {
  return {
    team: { id: teamId, name: teamId },
    enterprise: undefined,
    user: { id: "UINSTALLER", token: undefined, scopes: undefined },
    bot: { id: "BBOT", userId: "UBOT", token, scopes: ["chat:write"] },
    isEnterpriseInstall: false,
    appId: "A0001",
    tokenType: "bot" as const,
    authVersion: "v2" as const,
  };
}

it("serves a found installation from memory within the TTL, then reads again", async () => {
  const doc = createDocumentClient({ DYNAMODB_ENDPOINT: dynamo.endpoint, AWS_REGION: "us-east-1" });
  let now = 1_000_000;
  const store = new DynamoInstallationStore(doc, table, { cipher, clock: () => new Date(now), cacheTtlMs: 60_000 });
  await store.storeInstallation(installation("TC1", "xoxb-1"));
  dynamo.reset();
  expect((await store.find({ teamId: "TC1" }))?.bot?.token).toBe("xoxb-1");
  expect((await store.find({ teamId: "TC1" }))?.bot?.token).toBe("xoxb-1");
  expect(dynamo.counts.GetItem).toBe(1);
  now += 60_001;
  await store.find({ teamId: "TC1" });
  expect(dynamo.counts.GetItem).toBe(2);
  doc.destroy();
});

it("forgets on uninstall and reinstall through the same instance, and never caches a missing installation", async () => {
  const doc = createDocumentClient({ DYNAMODB_ENDPOINT: dynamo.endpoint, AWS_REGION: "us-east-1" });
  const store = new DynamoInstallationStore(doc, table, { cipher, cacheTtlMs: 60_000 });
  expect(await store.find({ teamId: "TC2" })).toBeUndefined();
  await new DynamoInstallationStore(doc, table, { cipher }).storeInstallation(installation("TC2", "xoxb-2"));
  expect((await store.find({ teamId: "TC2" }))?.bot?.token).toBe("xoxb-2");
  await store.storeInstallation(installation("TC2", "xoxb-2b"));
  expect((await store.find({ teamId: "TC2" }))?.bot?.token).toBe("xoxb-2b");
  await store.deleteInstallation({ teamId: "TC2", enterpriseId: undefined, isEnterpriseInstall: false });
  expect(await store.find({ teamId: "TC2" })).toBeUndefined();
  doc.destroy();
});

it("is off by default (other Lambdas read every time)", async () => {
  const doc = createDocumentClient({ DYNAMODB_ENDPOINT: dynamo.endpoint, AWS_REGION: "us-east-1" });
  const store = new DynamoInstallationStore(doc, table, { cipher });
  await store.storeInstallation(installation("TC3", "xoxb-3"));
  dynamo.reset();
  await store.find({ teamId: "TC3" });
  await store.find({ teamId: "TC3" });
  expect(dynamo.counts.GetItem).toBe(2);
  doc.destroy();
});
