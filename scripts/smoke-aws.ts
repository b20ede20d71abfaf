import { createHash, createHmac } from "node:crypto";
import { DescribeSecretCommand, GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { defaultProvider } from "@aws-sdk/credential-provider-node";
import { SignatureV4 } from "@smithy/signature-v4";

/**
 * The two AWS services `npm run smoke` reads, by the ARNs the stack outputs (the region is the ARN's). Endpoints
 * follow the SDK's own variables, so a local stand-in can answer: AWS_ENDPOINT_URL_SECRETS_MANAGER and
 * AWS_ENDPOINT_URL_SNS (dev/fakes/aws/control-plane.ts in the tests).
 */
export interface SmokeAws {
  /** How many versions the secret has (1: only the value the stack generated). Metadata only. */
  secretVersions(arn: string): Promise<number>;
  /** The one value smoke needs (the signing secret, to sign a url_verification); never printed. */
  secretValue(arn: string): Promise<string>;
  /** The topic's subscription ARNs ("PendingConfirmation" for an unconfirmed e-mail). */
  subscriptions(topicArn: string): Promise<string[]>;
}

const regionOf = (arn: string) => arn.split(":")[3] ?? "";

export function createSmokeAws(env: NodeJS.ProcessEnv = process.env): SmokeAws {
  const clients = new Map<string, SecretsManagerClient>();
  const secrets = (arn: string) => {
    const region = regionOf(arn);
    let client = clients.get(region);
    if (client === undefined) clients.set(region, (client = new SecretsManagerClient({ region, maxAttempts: 2 })));
    return client;
  };
  const credentials = defaultProvider();
  return {
    async secretVersions(arn) {
      const out = await secrets(arn).send(new DescribeSecretCommand({ SecretId: arn }));
      return Object.keys(out.VersionIdsToStages ?? {}).length;
    },
    async secretValue(arn) {
      const out = await secrets(arn).send(new GetSecretValueCommand({ SecretId: arn }));
      if (typeof out.SecretString !== "string") throw new Error(`secret ${arn} has no string value`);
      return out.SecretString;
    },
    async subscriptions(topicArn) {
      // SNS speaks the query protocol; a signed form POST is all ListSubscriptionsByTopic needs (no SNS client here).
      const region = regionOf(topicArn);
      const endpoint = new URL(env.AWS_ENDPOINT_URL_SNS ?? env.AWS_ENDPOINT_URL ?? `https://sns.${region}.amazonaws.com/`);
      const body = new URLSearchParams({ Action: "ListSubscriptionsByTopic", Version: "2010-03-31", TopicArn: topicArn }).toString();
      const signer = new SignatureV4({ service: "sns", region, credentials, sha256: Sha256 });
      const signed = await signer.sign({
        method: "POST",
        protocol: endpoint.protocol,
        hostname: endpoint.hostname,
        ...(endpoint.port === "" ? {} : { port: Number(endpoint.port) }),
        path: endpoint.pathname,
        headers: { host: endpoint.host, "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
        body,
      });
      const res = await fetch(endpoint, { method: "POST", headers: signed.headers, body, signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      if (!res.ok) throw new Error(`SNS ListSubscriptionsByTopic answered ${res.status}: ${/<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? text.slice(0, 80)}`);
      return [...text.matchAll(/<SubscriptionArn>([^<]*)<\/SubscriptionArn>/g)].map((m) => m[1]!);
    },
  };
}

/** The SHA-256 / HMAC the signer asks for, from node:crypto. */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash("sha256") : createHmac("sha256", typeof secret === "string" ? secret : Buffer.from(secret as ArrayBuffer));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(typeof data === "string" ? data : Buffer.from(data as ArrayBuffer));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    throw new Error("Sha256.reset is not supported (the signer makes a new one per digest)");
  }
}
