import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * Where a running `npm run dev` says how to reach it, so `npm run report` (and anyone else) needs no flags:
 * `.local/dev-stack.json` (git-ignored; DEV_STACK_FILE to use another path). Written once the stack listens,
 * removed when it stops. Holds endpoints and the table name only — no secret (the local AWS credentials are the
 * placeholder "local" that DynamoDB Local accepts).
 */
export interface DevStackInfo {
  url: string;
  tableName: string;
  dynamodbEndpoint: string;
  region: string;
  pid: number;
  startedAt: string;
}

export const DEFAULT_DEV_STACK_FILE = ".local/dev-stack.json";

export function devStackFile(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return resolve(env.DEV_STACK_FILE ?? DEFAULT_DEV_STACK_FILE);
}

export function writeDevStackFile(path: string, info: DevStackInfo): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(info, null, 2)}\n`);
}

/** Removes the file if it is still ours (a second `npm run dev` may have written its own since). */
export function removeDevStackFile(path: string, pid: number): void {
  if (readDevStackFile(path)?.pid === pid) rmSync(path, { force: true });
}

export function readDevStackFile(path: string): DevStackInfo | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as { code?: unknown }).code === "ENOENT") return undefined;
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<DevStackInfo>;
  const strings = ["url", "tableName", "dynamodbEndpoint", "region"] as const;
  if (strings.some((k) => typeof parsed[k] !== "string") || typeof parsed.pid !== "number") return undefined;
  return parsed as DevStackInfo;
}

/** True when the stack the file names answers its health check (a stale file from a killed process does not). */
export async function devStackAnswers(info: DevStackInfo, timeoutMs = 2000): Promise<boolean> {
  try {
    const res = await fetch(`${info.url}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    return res.ok;
  } catch (err) {
    if (err instanceof Error && (err.name === "TimeoutError" || err.name === "TypeError")) return false; // refused / reset / no answer
    throw err;
  }
}

/** Where `npm run dev` writes its outputs in the shape `cdk deploy --outputs-file` writes (DEV_OUTPUTS_FILE). */
export const DEFAULT_DEV_OUTPUTS_FILE = ".local/cdk-outputs.json";
export const LOCAL_STACK_NAME = "SlackMcpAgentLocal";

export function devOutputsFile(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return resolve(env.DEV_OUTPUTS_FILE ?? DEFAULT_DEV_OUTPUTS_FILE);
}

/**
 * The deployed stack's URL outputs for the local stack, which serves every route on one server (the MCP server
 * under /mcp): `npm run smoke -- --outputs .local/cdk-outputs.json` checks it as it checks a deploy. There are no
 * secret or alarm outputs: locally the secrets are in .env / DATA_DIR and nothing alarms.
 */
export function localStackOutputs(url: string, tableName: string): Record<string, Record<string, string>> {
  const base = `${url.replace(/\/+$/, "")}/`;
  return {
    [LOCAL_STACK_NAME]: {
      IngressUrl: base,
      SlackEventsUrl: `${base}slack/events`,
      WebUrl: base,
      SlackInstallUrl: `${base}slack/install`,
      SlackOAuthRedirectUrl: `${base}slack/oauth_redirect`,
      FreeeConnectUrl: `${base}freee/connect`,
      FreeeCallbackUrl: `${base}freee/callback`,
      FreeeMcpUrl: `${base}mcp`,
      TableName: tableName,
    },
  };
}

export function writeDevOutputsFile(path: string, outputs: Record<string, Record<string, string>>): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(outputs, null, 2)}\n`);
}
