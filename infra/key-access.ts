import * as iam from "aws-cdk-lib/aws-iam";
import type * as lambda from "aws-cdk-lib/aws-lambda";
import type { DataConstruct } from "./constructs/data";

/**
 * Least privilege on the token key: one KMS key seals Slack installations and freee tokens, each under its own
 * encryption context (lib/store/installations.ts: `{ installation }`; lib/store/freee-connections.ts and
 * pending-tokens.ts: `{ teamId }`, `{ teamId, purpose }`). A grant names the sealed kind and is conditioned on
 * the context's keys, so a Lambda that opens installations for its bot token cannot decrypt any workspace's
 * freee tokens, and the reverse. KmsTokenCipher calls Encrypt and Decrypt only.
 */
export type SealedKind = "installation" | "freee";
export const SEALED_CONTEXT_KEYS: Record<SealedKind, readonly string[]> = { installation: ["installation"], freee: ["teamId", "purpose"] };

export function grantTokenKey(data: DataConstruct, fn: lambda.IFunction, kind: SealedKind, use: { decrypt?: boolean; encrypt?: boolean }): void {
  const actions = [...(use.decrypt === true ? ["kms:Decrypt"] : []), ...(use.encrypt === true ? ["kms:Encrypt"] : [])];
  if (actions.length === 0) return;
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions,
      resources: [data.tokenKey.keyArn],
      conditions: {
        // Every key of the request's context is one of this kind's, and there is a context at all.
        "ForAllValues:StringEquals": { "kms:EncryptionContextKeys": [...SEALED_CONTEXT_KEYS[kind]] },
        Null: { "kms:EncryptionContextKeys": "false" },
      },
    }),
  );
}
