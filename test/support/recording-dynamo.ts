import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A DynamoDB wire endpoint that records who called what, then forwards to the real one (DynamoDB Local). The
 * caller is the access key id in the SigV4 `Authorization` header: give each Lambda's environment its own
 * AWS_ACCESS_KEY_ID (`accessKeyFor(name)`) and every call is attributed to that Lambda, as IAM would attribute it
 * to its role.
 */

/**
 * The access key a Lambda named `name` signs with. Access key ids are letters and digits (DynamoDB Local refuses
 * any other with UnrecognizedClientException, as AWS would), so `generate-process` signs as `generateProcess`;
 * the recorder turns it back into the name.
 */
export function accessKeyFor(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function nameOf(accessKey: string): string {
  return accessKey.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
export interface DynamoCall {
  principal: string;
  /** The IAM action: `GetItem`, `Query`, `Scan`, `BatchWriteItem`… */
  action: string;
  table: string;
  index?: string;
  /** Partition key values the request touches (`dynamodb:LeadingKeys`). */
  leadingKeys: string[];
  /** The item's sort key, for an item-level call (what it wrote or read, beyond the partition IAM sees). */
  sortKey?: string;
}

export interface RecordingDynamo {
  endpoint: string;
  calls: DynamoCall[];
  forwardTo(target: string): void;
  close(): Promise<void>;
}

type Av = { S?: string };
type Body = {
  TableName?: string;
  IndexName?: string;
  Key?: Record<string, Av>;
  Item?: Record<string, Av>;
  KeyConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, Av>;
};

export async function startRecordingDynamo(partitionKey = "pk"): Promise<RecordingDynamo> {
  let target: string | undefined;
  const calls: DynamoCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const action = String(req.headers["x-amz-target"] ?? "").split(".")[1] ?? "?";
      const principal = nameOf(/Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ""))?.[1] ?? "?");
      const body = JSON.parse(raw.toString("utf8") || "{}") as Body;
      if (action === "TransactWriteItems" || action === "TransactGetItems") {
        // IAM authorizes a transaction item by item, each as its own action (PutItem, UpdateItem, …) on its key.
        for (const item of (body as { TransactItems?: Record<string, Body>[] }).TransactItems ?? []) {
          for (const [kind, input] of Object.entries(item)) {
            calls.push({ principal, action: TRANSACT_ACTIONS[kind] ?? kind, table: input.TableName ?? "?", leadingKeys: leadingKeys(input, partitionKey), ...sortKeyOf(input) });
          }
        }
      } else if (action !== "CreateTable" && action !== "DescribeTable") {
        calls.push({ principal, action, table: body.TableName ?? "?", ...(body.IndexName === undefined ? {} : { index: body.IndexName }), leadingKeys: leadingKeys(body, partitionKey), ...sortKeyOf(body) });
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && k !== "host" && k !== "content-length") headers[k] = v;
      fetch(target ?? "http://127.0.0.1:1", { method: req.method, headers, body: raw })
        .then(async (upstream) => {
          res.writeHead(upstream.status, Object.fromEntries(upstream.headers.entries()));
          res.end(Buffer.from(await upstream.arrayBuffer()));
        })
        .catch((err: unknown) => {
          res.writeHead(502);
          res.end(String(err));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    forwardTo: (url) => void (target = url),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const TRANSACT_ACTIONS: Record<string, string> = { Get: "GetItem", Put: "PutItem", Update: "UpdateItem", Delete: "DeleteItem", ConditionCheck: "ConditionCheckItem" };

/** The sort key (`sk`) of an item-level call, when it has one. */
function sortKeyOf(body: Body): { sortKey?: string } {
  const sk = body.Key?.sk?.S ?? body.Item?.sk?.S;
  return sk === undefined ? {} : { sortKey: sk };
}

/** The partition key value(s) of an item-level call or of a Query's key condition; [] when there is none (Scan…). */
function leadingKeys(body: Body, partitionKey: string): string[] {
  const fromItem = body.Key?.[partitionKey]?.S ?? body.Item?.[partitionKey]?.S;
  if (fromItem !== undefined) return [fromItem];
  if (body.KeyConditionExpression === undefined) return [];
  const names = body.ExpressionAttributeNames ?? {};
  for (const clause of body.KeyConditionExpression.split(/\s+AND\s+/i)) {
    const m = /^\s*([#\w]+)\s*=\s*(:\w+)\s*$/.exec(clause);
    if (m === null) continue;
    const attr = names[m[1]!] ?? m[1]!;
    const value = body.ExpressionAttributeValues?.[m[2]!]?.S;
    if (value !== undefined && (body.IndexName !== undefined || attr === partitionKey)) return [value];
  }
  return [];
}
