import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { AWS_CONTROL_CALL } from "../core/config/client-budgets";
import { localEndpointConfig } from "../core/aws/local-endpoint";
import { DecryptCommand, EncryptCommand, KMSClient } from "@aws-sdk/client-kms";
import { optionalEnv, type Env } from "../core/config/env";
import { classifyAwsError } from "../core/errors/classify";
import { FatalConfigError } from "../core/errors/taxonomy";
import { boundedRequestHandler } from "../core/config/request-handler";

/**
 * Encrypts tokens at rest: freee OAuth tokens and Slack installations (bot / user tokens). The context (the
 * workspace or installation id) is bound to the ciphertext — KMS encryption context or AES-GCM associated data
 * — so a token blob copied to another workspace's item does not decrypt.
 */
export interface TokenCipher {
  readonly kind: "kms" | "local";
  encrypt(plaintext: string, context: Record<string, string>): Promise<string>;
  decrypt(ciphertext: string, context: Record<string, string>): Promise<string>;
}

const KMS_PREFIX = "kms:v1:";
const LOCAL_PREFIX = "local:v1:";

/** AWS KMS (`TOKEN_KMS_KEY_ID`). One Encrypt per save: both tokens travel in one blob (well under 4 KB). */
export class KmsTokenCipher implements TokenCipher {
  readonly kind = "kms" as const;
  constructor(
    private readonly kms: Pick<KMSClient, "send">,
    private readonly keyId: string,
  ) {}

  async encrypt(plaintext: string, context: Record<string, string>): Promise<string> {
    try {
      const out = await this.kms.send(
        new EncryptCommand({ KeyId: this.keyId, Plaintext: Buffer.from(plaintext, "utf8"), EncryptionContext: context }),
      );
      if (out.CiphertextBlob === undefined) throw new FatalConfigError("KMS Encrypt returned no ciphertext");
      return KMS_PREFIX + Buffer.from(out.CiphertextBlob).toString("base64");
    } catch (err) {
      throw translateKmsError(err, "kms encrypt");
    }
  }

  async decrypt(ciphertext: string, context: Record<string, string>): Promise<string> {
    if (!ciphertext.startsWith(KMS_PREFIX)) {
      throw new FatalConfigError("stored tokens were not encrypted with KMS (cipher setting changed?)");
    }
    try {
      const out = await this.kms.send(
        new DecryptCommand({
          KeyId: this.keyId,
          CiphertextBlob: Buffer.from(ciphertext.slice(KMS_PREFIX.length), "base64"),
          EncryptionContext: context,
        }),
      );
      if (out.Plaintext === undefined) throw new FatalConfigError("KMS Decrypt returned no plaintext");
      return Buffer.from(out.Plaintext).toString("utf8");
    } catch (err) {
      throw translateKmsError(err, "kms decrypt");
    }
  }
}

/** AES-256-GCM with a key from the environment: `npm run dev` and tests only (refused inside Lambda). */
export class LocalTokenCipher implements TokenCipher {
  readonly kind = "local" as const;
  private readonly key: Buffer;

  constructor(keyBase64: string) {
    const key = Buffer.from(keyBase64, "base64");
    if (key.length !== 32) throw new FatalConfigError("FREEE_TOKEN_LOCAL_KEY must be 32 bytes, base64-encoded");
    this.key = key;
  }

  async encrypt(plaintext: string, context: Record<string, string>): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(contextAad(context));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return LOCAL_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
  }

  async decrypt(ciphertext: string, context: Record<string, string>): Promise<string> {
    if (!ciphertext.startsWith(LOCAL_PREFIX)) {
      throw new FatalConfigError("stored tokens were not encrypted with the local key (cipher setting changed?)");
    }
    const raw = Buffer.from(ciphertext.slice(LOCAL_PREFIX.length), "base64");
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
      decipher.setAAD(contextAad(context));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    } catch (cause) {
      throw new FatalConfigError("stored tokens do not decrypt (wrong key or tampered item)", { cause });
    }
  }
}

/** KMS when `TOKEN_KMS_KEY_ID` is set (endpoint `KMS_ENDPOINT` for a local KMS); else the local key. */
export function createTokenCipher(env: Env = process.env): TokenCipher {
  const keyId = optionalEnv("TOKEN_KMS_KEY_ID", env);
  if (keyId !== undefined) {
    const kms = new KMSClient({
      maxAttempts: AWS_CONTROL_CALL.attempts,
      requestHandler: boundedRequestHandler(AWS_CONTROL_CALL),
      ...localEndpointConfig("KMS_ENDPOINT", env),
    });
    return new KmsTokenCipher(kms, keyId);
  }
  const localKey = optionalEnv("FREEE_TOKEN_LOCAL_KEY", env);
  if (localKey === undefined) {
    throw new FatalConfigError("missing setting TOKEN_KMS_KEY_ID (or FREEE_TOKEN_LOCAL_KEY for local development)", {
      details: { setting: "TOKEN_KMS_KEY_ID" },
    });
  }
  if (optionalEnv("AWS_LAMBDA_FUNCTION_NAME", env) !== undefined) {
    // On AWS the tokens must be under KMS; a local key in a Lambda environment is a deployment mistake.
    throw new FatalConfigError("FREEE_TOKEN_LOCAL_KEY is for local development; set TOKEN_KMS_KEY_ID on AWS", {
      details: { setting: "TOKEN_KMS_KEY_ID" },
    });
  }
  return new LocalTokenCipher(localKey);
}

/**
 * createTokenCipher on first use: a store that never seals or opens anything (single-workspace mode, where the
 * bot token comes from SLACK_BOT_TOKEN) needs no key setting.
 */
export function lazyTokenCipher(env: Env = process.env): TokenCipher {
  const settings = { ...env };
  let cipher: TokenCipher | undefined;
  const get = () => (cipher ??= createTokenCipher(settings));
  return {
    get kind() {
      return get().kind;
    },
    encrypt: (plaintext, context) => get().encrypt(plaintext, context),
    decrypt: (ciphertext, context) => get().decrypt(ciphertext, context),
  };
}

function contextAad(context: Record<string, string>): Buffer {
  return Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))), "utf8");
}

function translateKmsError(err: unknown, where: string): Error {
  if (err instanceof FatalConfigError) return err;
  const classified = classifyAwsError(err, where);
  if (classified !== undefined) return classified;
  const name = err instanceof Error ? err.name : "";
  if (["InvalidCiphertextException", "IncorrectKeyException", "NotFoundException", "DisabledException", "KMSInvalidStateException", "InvalidKeyUsageException"].includes(name)) {
    return new FatalConfigError(`${where}: ${name}`, { cause: err });
  }
  return err instanceof Error ? err : new Error(`${where}: ${String(err)}`, { cause: err });
}
