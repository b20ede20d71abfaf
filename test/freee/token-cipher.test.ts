import { DecryptCommand, EncryptCommand, KMSClient } from "@aws-sdk/client-kms";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, describe, expect, it } from "vitest";
import { FatalConfigError, ThrottledError } from "../../lib/core/errors/taxonomy";
import { createTokenCipher, KmsTokenCipher, LocalTokenCipher } from "../../lib/store/token-cipher";
import { localKey } from "./helpers";

describe("KmsTokenCipher", () => {
  const kms = mockClient(KMSClient);
  afterEach(() => kms.reset());

  it("encrypts with the configured key and the workspace as encryption context, and decrypts with both", async () => {
    kms.on(EncryptCommand).resolves({ CiphertextBlob: Buffer.from("opaque-blob") });
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from("secret-json") });
    const cipher = new KmsTokenCipher(new KMSClient({ region: "us-east-1" }), "alias/freee-tokens");
    const blob = await cipher.encrypt("secret-json", { teamId: "T1" });
    expect(blob).toBe(`kms:v1:${Buffer.from("opaque-blob").toString("base64")}`);
    expect(blob).not.toContain("secret-json");
    const encrypt = kms.commandCalls(EncryptCommand)[0]!.args[0].input;
    expect(encrypt.KeyId).toBe("alias/freee-tokens");
    expect(encrypt.EncryptionContext).toEqual({ teamId: "T1" });
    expect(Buffer.from(encrypt.Plaintext!).toString()).toBe("secret-json");

    expect(await cipher.decrypt(blob, { teamId: "T1" })).toBe("secret-json");
    const decrypt = kms.commandCalls(DecryptCommand)[0]!.args[0].input;
    expect(decrypt.EncryptionContext).toEqual({ teamId: "T1" });
    expect(Buffer.from(decrypt.CiphertextBlob!).toString()).toBe("opaque-blob");
  });

  it("translates KMS failures into the taxonomy", async () => {
    const throttled = Object.assign(new Error("slow down"), { name: "ThrottlingException" });
    kms.on(EncryptCommand).rejects(throttled);
    const invalid = Object.assign(new Error("bad"), { name: "InvalidCiphertextException" });
    kms.on(DecryptCommand).rejects(invalid);
    const cipher = new KmsTokenCipher(new KMSClient({ region: "us-east-1" }), "k");
    await expect(cipher.encrypt("x", { teamId: "T1" })).rejects.toBeInstanceOf(ThrottledError);
    const err = await cipher.decrypt("kms:v1:AAAA", { teamId: "T1" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FatalConfigError);
    expect((err as Error).cause).toBe(invalid);
  });
});

describe("LocalTokenCipher", () => {
  it("round-trips, and refuses another context or a tampered blob", async () => {
    const cipher = new LocalTokenCipher(localKey());
    const blob = await cipher.encrypt("トークン", { teamId: "T1" });
    expect(blob).not.toContain("トークン");
    expect(await cipher.decrypt(blob, { teamId: "T1" })).toBe("トークン");
    await expect(cipher.decrypt(blob, { teamId: "T2" })).rejects.toBeInstanceOf(FatalConfigError);
    const tampered = blob.slice(0, -4) + (blob.endsWith("AAAA") ? "BBBB" : "AAAA");
    await expect(cipher.decrypt(tampered, { teamId: "T1" })).rejects.toBeInstanceOf(FatalConfigError);
  });
});

describe("createTokenCipher", () => {
  it("picks KMS when TOKEN_KMS_KEY_ID is set, the local key otherwise, and fails loudly with neither", () => {
    expect(createTokenCipher({ TOKEN_KMS_KEY_ID: "k", KMS_ENDPOINT: "http://127.0.0.1:1" }).kind).toBe("kms");
    expect(createTokenCipher({ FREEE_TOKEN_LOCAL_KEY: localKey() }).kind).toBe("local");
    expect(() => createTokenCipher({})).toThrow(FatalConfigError);
    expect(() => createTokenCipher({ FREEE_TOKEN_LOCAL_KEY: localKey(), AWS_LAMBDA_FUNCTION_NAME: "fn" })).toThrow(FatalConfigError);
  });
});
