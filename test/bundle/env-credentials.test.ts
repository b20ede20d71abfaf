import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { defaultProvider } from "../../lambdas/ingress/env-credentials";

/** What replaces the SDK's credential chain in the Slack Lambda's bundle gives the role's credentials Lambda sets. */
describe("env credentials (the Slack Lambda's credential chain)", () => {
  it("reads the Lambda environment's key, secret and session token", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: "AKIDLAMBDA", AWS_SECRET_ACCESS_KEY: "secret-from-env", AWS_SESSION_TOKEN: "session-from-env" });
    try {
      const creds = await defaultProvider()();
      expect(creds).toMatchObject({ accessKeyId: "AKIDLAMBDA", secretAccessKey: "secret-from-env", sessionToken: "session-from-env" });
      // As the SDK clients call it: the client's credential provider resolves to the same.
      const client = new DynamoDBClient({ region: "us-east-1", credentialDefaultProvider: defaultProvider as never });
      expect(await client.config.credentials()).toMatchObject({ accessKeyId: "AKIDLAMBDA" });
    } finally {
      process.env = saved;
    }
  });

  it("fails plainly without them (no silent fallback to another source)", async () => {
    const saved = { ...process.env };
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    try {
      await expect(defaultProvider()()).rejects.toThrow(/Unable to find environment variable credentials/);
    } finally {
      process.env = saved;
    }
  });
});
