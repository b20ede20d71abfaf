import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A KMS and Secrets Manager wire endpoint (JSON protocol) that records who called what, as IAM would see it: the
 * caller is the SigV4 access key id (`accessKeyFor(name)` in recording-dynamo.ts), and each call names its key and
 * encryption context, or its secret. KMS "ciphertext" is opaque to the caller and refuses another context, as KMS
 * does; a secret is answered from `secrets` (by the last path segment of its ARN, the secret's name).
 */
export interface AwsCall {
  principal: string;
  /** `kms:Encrypt`, `kms:Decrypt`, `secretsmanager:GetSecretValue`. */
  action: string;
  keyId?: string;
  /** The encryption context's keys, sorted. */
  contextKeys?: string[];
  /** The secret's name (the ARN's last segment). */
  secret?: string;
}

export interface RecordingAws {
  endpoint: string;
  calls: AwsCall[];
  /** The ARN a Lambda's `<NAME>_SECRET_ARN` names. */
  secretArn(name: string): string;
  close(): Promise<void>;
}

export const RECORDED_TOKEN_KEY_ARN = "arn:aws:kms:us-east-1:123456789012:key/token-key";

const principalOf = (authorization: string | undefined) =>
  (/Credential=([^/]+)\//.exec(String(authorization ?? ""))?.[1] ?? "?").replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export async function startRecordingAws(secrets: Record<string, string>): Promise<RecordingAws> {
  const calls: AwsCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const target = String(req.headers["x-amz-target"] ?? "");
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
      const principal = principalOf(req.headers.authorization);
      const reply = (status: number, payload: unknown) => {
        res.writeHead(status, { "content-type": "application/x-amz-json-1.1" });
        res.end(JSON.stringify(payload));
      };
      const context = (body.EncryptionContext ?? {}) as Record<string, string>;
      const contextKeys = Object.keys(context).sort();
      if (target === "TrentService.Encrypt") {
        calls.push({ principal, action: "kms:Encrypt", keyId: String(body.KeyId), contextKeys });
        const sealed = Buffer.from(JSON.stringify({ ctx: context, pt: body.Plaintext, key: body.KeyId })).toString("base64");
        return reply(200, { CiphertextBlob: Buffer.from(`sealed:${sealed}`).toString("base64"), KeyId: body.KeyId });
      }
      if (target === "TrentService.Decrypt") {
        const blob = Buffer.from(String(body.CiphertextBlob), "base64").toString("utf8");
        const sealed = JSON.parse(Buffer.from(blob.replace(/^sealed:/, ""), "base64").toString("utf8")) as { ctx: Record<string, string>; pt: string; key: string };
        calls.push({ principal, action: "kms:Decrypt", keyId: sealed.key, contextKeys });
        if (JSON.stringify(sealed.ctx) !== JSON.stringify(context)) return reply(400, { __type: "InvalidCiphertextException", message: "context mismatch" });
        return reply(200, { Plaintext: sealed.pt, KeyId: sealed.key });
      }
      if (target === "secretsmanager.GetSecretValue") {
        const name = String(body.SecretId).split(":").at(-1)!;
        calls.push({ principal, action: "secretsmanager:GetSecretValue", secret: name });
        const value = secrets[name];
        if (value === undefined) return reply(400, { __type: "ResourceNotFoundException", message: `no secret ${name}` });
        return reply(200, { ARN: body.SecretId, Name: name, SecretString: value, VersionId: "v1" });
      }
      return reply(400, { __type: "UnknownOperationException", message: target });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    secretArn: (name) => `arn:aws:secretsmanager:us-east-1:123456789012:secret:${name}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
