import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FreeeConnectionStore } from "../../lib/store/freee-connections";
import { createTokenCipher } from "../../lib/store/token-cipher";
import { Keys } from "../../lib/store/table";
import { startTestTable, type TestTable } from "../support/dynamo";

/**
 * `KMS_ENDPOINT` end to end: a tiny scripted KMS (JSON protocol, TrentService.Encrypt / Decrypt) on
 * 127.0.0.1. Its "ciphertext" is opaque to the caller and refuses another encryption context, like KMS.
 */

let table: TestTable;
let kms: Server;
let kmsUrl: string;
const calls: { target: string; body: Record<string, unknown> }[] = [];

beforeAll(async () => {
  table = await startTestTable();
  kms = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const target = String(req.headers["x-amz-target"]);
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      calls.push({ target, body });
      const reply = (status: number, payload: unknown) => {
        res.writeHead(status, { "content-type": "application/x-amz-json-1.1" });
        res.end(JSON.stringify(payload));
      };
      if (target === "TrentService.Encrypt") {
        const sealed = Buffer.from(JSON.stringify({ ctx: body.EncryptionContext, pt: body.Plaintext, key: body.KeyId })).toString("base64");
        return reply(200, { CiphertextBlob: Buffer.from(`sealed:${sealed}`).toString("base64"), KeyId: body.KeyId });
      }
      if (target === "TrentService.Decrypt") {
        const blob = Buffer.from(String(body.CiphertextBlob), "base64").toString("utf8");
        const sealed = JSON.parse(Buffer.from(blob.replace(/^sealed:/, ""), "base64").toString("utf8")) as { ctx: unknown; pt: string; key: string };
        if (JSON.stringify(sealed.ctx) !== JSON.stringify(body.EncryptionContext)) {
          return reply(400, { __type: "InvalidCiphertextException", message: "context mismatch" });
        }
        return reply(200, { Plaintext: sealed.pt, KeyId: sealed.key });
      }
      return reply(400, { __type: "UnknownOperationException" });
    });
  });
  await new Promise<void>((resolve) => kms.listen(0, "127.0.0.1", () => resolve()));
  kmsUrl = `http://127.0.0.1:${(kms.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => kms.close(() => resolve()));
  await table.close();
});

it("tokens go through KMS (KMS_ENDPOINT) with the workspace as encryption context; the item holds no plaintext", async () => {
  const cipher = createTokenCipher({ TOKEN_KMS_KEY_ID: "alias/freee-tokens", KMS_ENDPOINT: kmsUrl, AWS_REGION: "ap-northeast-1", AWS_ACCESS_KEY_ID: "local", AWS_SECRET_ACCESS_KEY: "local" });
  expect(cipher.kind).toBe("kms");
  const store = new FreeeConnectionStore(table.doc, table.tableName, cipher);
  await store.save({
    teamId: "TKMS",
    tokens: { accessToken: "kms-access-PLAIN", refreshToken: "kms-refresh-PLAIN", accessTokenExpiresAt: "2026-12-01T00:00:00.000Z" },
    companyId: 101,
    connectedBy: "U1",
  });
  const raw = await table.doc.send(new GetCommand({ TableName: table.tableName, Key: Keys.freeeConnection("TKMS") }));
  expect(raw.Item!.cipher).toBe("kms");
  expect(String(raw.Item!.tokens)).toMatch(/^kms:v1:/);
  expect(JSON.stringify(raw.Item)).not.toContain("PLAIN");

  expect(await store.get("TKMS")).toMatchObject({ accessToken: "kms-access-PLAIN", refreshToken: "kms-refresh-PLAIN" });
  const encrypt = calls.find((c) => c.target === "TrentService.Encrypt")!;
  expect(encrypt.body).toMatchObject({ KeyId: "alias/freee-tokens", EncryptionContext: { teamId: "TKMS" } });
  const decrypt = calls.find((c) => c.target === "TrentService.Decrypt")!;
  expect(decrypt.body).toMatchObject({ KeyId: "alias/freee-tokens", EncryptionContext: { teamId: "TKMS" } });
});
