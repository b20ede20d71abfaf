import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Installation } from "@slack/oauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FatalConfigError } from "../../lib/core/errors/taxonomy";
import { LocalTokenCipher } from "../../lib/store/token-cipher";
import { DynamoInstallationStore } from "../../lib/store/installations";
import { Keys } from "../../lib/store/table";
import { startTestTable, type TestTable } from "../support/dynamo";

/** Issue 15 item 5: Slack bot tokens were stored in the table in plain text (freee tokens were sealed). */

let table: TestTable;
const cipher = new LocalTokenCipher(Buffer.alloc(32, 9).toString("base64"));
beforeAll(async () => {
  table = await startTestTable();
});
afterAll(async () => table.close());

function installation(teamId: string, botToken: string): Installation<"v2", false> {
  return {
    team: { id: teamId, name: teamId },
    enterprise: undefined,
    user: { id: "UINSTALLER", token: `xoxp-user-${teamId}-PLAIN`, scopes: ["users:read"] },
    bot: { id: "BBOT", userId: "UBOT", token: botToken, refreshToken: `xoxe-1-refresh-${teamId}-PLAIN`, scopes: ["chat:write"] },
    isEnterpriseInstall: false,
    appId: "A0001",
    tokenType: "bot",
    authVersion: "v2",
  };
}

const raw = async (id: string) => (await table.doc.send(new GetCommand({ TableName: table.tableName, Key: Keys.installation(id), ConsistentRead: true }))).Item;

describe("Slack installations are sealed like freee tokens", () => {
  it("the stored item holds no token, only the sealed blob and the ids; find() opens it", async () => {
    const store = new DynamoInstallationStore(table.doc, table.tableName, { cipher });
    await store.storeInstallation(installation("TSEAL", "xoxb-111-222-PLAINbot"));
    const item = await raw("T#TSEAL");
    expect(JSON.stringify(item)).not.toContain("PLAIN");
    expect(item).toMatchObject({ recordType: "installation", teamId: "TSEAL", appId: "A0001", cipher: "local" });
    expect(String(item!.sealed)).toMatch(/^local:v1:/);
    const found = await store.find({ teamId: "TSEAL", isEnterpriseInstall: false });
    expect(found?.bot?.token).toBe("xoxb-111-222-PLAINbot");
    expect(found?.user?.token).toBe("xoxp-user-TSEAL-PLAIN");
  });

  it("a blob copied onto another workspace's item does not open (the installation id is bound to it)", async () => {
    const store = new DynamoInstallationStore(table.doc, table.tableName, { cipher });
    await store.storeInstallation(installation("TSRC", "xoxb-src-PLAIN"));
    const item = await raw("T#TSRC");
    await table.doc.send(new PutCommand({ TableName: table.tableName, Item: { ...item, ...Keys.installation("T#TDST") } }));
    await expect(store.find({ teamId: "TDST", isEnterpriseInstall: false })).rejects.toBeInstanceOf(FatalConfigError);
  });

  it("a plain item an earlier version wrote is read, and sealed by the store that may encrypt (the ingress)", async () => {
    const legacy = { ...Keys.installation("T#TOLD"), recordType: "installation", installation: installation("TOLD", "xoxb-old-PLAIN"), installedAt: "2025-01-01T00:00:00.000Z" };
    await table.doc.send(new PutCommand({ TableName: table.tableName, Item: legacy }));

    // A step Lambda (decrypt only) reads it as it is and leaves it.
    const reader = new DynamoInstallationStore(table.doc, table.tableName, { cipher });
    expect((await reader.find({ teamId: "TOLD" }))?.bot?.token).toBe("xoxb-old-PLAIN");
    expect(JSON.stringify(await raw("T#TOLD"))).toContain("xoxb-old-PLAIN");

    // The ingress reads it once and seals it in place.
    const ingress = new DynamoInstallationStore(table.doc, table.tableName, { cipher, sealPlainItems: true });
    expect((await ingress.find({ teamId: "TOLD" }))?.bot?.token).toBe("xoxb-old-PLAIN");
    const item = await raw("T#TOLD");
    expect(JSON.stringify(item)).not.toContain("PLAIN");
    expect(item!.installation).toBeUndefined();
    expect(String(item!.sealed)).toMatch(/^local:v1:/);
    expect((await reader.find({ teamId: "TOLD" }))?.bot?.token).toBe("xoxb-old-PLAIN");
  });

  it("uninstall leaves a tombstone without tokens (no DeleteItem), found as not installed", async () => {
    const store = new DynamoInstallationStore(table.doc, table.tableName, { cipher, clock: () => new Date("2026-03-01T00:00:00Z") });
    await store.storeInstallation(installation("TGONE", "xoxb-gone-PLAIN"));
    await store.deleteInstallation({ teamId: "TGONE", enterpriseId: undefined, isEnterpriseInstall: false });
    const item = await raw("T#TGONE");
    expect(JSON.stringify(item)).not.toContain("PLAIN");
    expect(item).toMatchObject({ uninstalledAt: "2026-03-01T00:00:00.000Z", expiresAt: Date.parse("2026-03-31T00:00:00Z") / 1000 });
    expect(await store.find({ teamId: "TGONE" })).toBeUndefined();
    // A reinstall replaces the tombstone.
    await store.storeInstallation(installation("TGONE", "xoxb-back-PLAIN"));
    expect((await store.find({ teamId: "TGONE" }))?.bot?.token).toBe("xoxb-back-PLAIN");
  });
});
