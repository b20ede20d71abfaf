import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { FatalConfigError } from "../../lib/core/errors/taxonomy";

/**
 * Secrets the local stack makes up for itself when `.env` leaves them out: the sandbox's Slack signing
 * secret, the MCP bearer secret, the freee OAuth state secret and the local token key. Kept in
 * `<dataDir>/local-secrets.json` (mode 0600) so a restart can still read the tokens it encrypted.
 */
const SecretsSchema = z.object({
  sandboxSigningSecret: z.string().min(32),
  mcpBearerSecret: z.string().min(32),
  freeeStateSecret: z.string().min(32),
  freeeTokenLocalKey: z.string().min(40),
});
export type LocalSecrets = z.infer<typeof SecretsSchema>;

export function loadLocalSecrets(dataDir: string | undefined): LocalSecrets {
  const fresh = (): LocalSecrets => ({
    sandboxSigningSecret: randomBytes(24).toString("hex"),
    mcpBearerSecret: randomBytes(32).toString("hex"),
    freeeStateSecret: randomBytes(32).toString("hex"),
    freeeTokenLocalKey: randomBytes(32).toString("base64"),
  });
  if (dataDir === undefined) return fresh();
  const file = join(dataDir, "local-secrets.json");
  if (existsSync(file)) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (err) {
      throw new FatalConfigError(`${file} is not JSON; delete it to make new local secrets`, { cause: err });
    }
    const parsed = SecretsSchema.safeParse(raw);
    if (!parsed.success) throw new FatalConfigError(`${file} is not a valid local secrets file; delete it to make new ones`, { cause: parsed.error });
    return parsed.data;
  }
  mkdirSync(dataDir, { recursive: true });
  const secrets = fresh();
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
