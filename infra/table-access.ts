import * as iam from "aws-cdk-lib/aws-iam";
import type * as lambda from "aws-cdk-lib/aws-lambda";
import { PARTITIONS, TABLE_KEYS, type PartitionPrefix } from "../lib/store/table";
import type { DataConstruct } from "./constructs/data";
import type { StepFunctionName } from "./state-machines/functions";

/**
 * Least privilege on the one table: per Lambda, the DynamoDB actions it calls, per partition prefix (condition
 * `dynamodb:LeadingKeys`), and whether it queries the byTeam index. Read from the code — the store methods each
 * handler reaches — and checked against it: test/infra/table-access.test.ts runs the handlers over a recording
 * DynamoDB endpoint and fails on any call a policy here would deny. No role gets Scan, DeleteItem, the Batch*
 * actions or DescribeTable (a TransactWriteItems is authorised item by item, by the actions listed here); only the
 * MCP server gets ConditionCheckItem, on task items: a write step is claimed only while its run is live.
 */

export type TableAction = "GetItem" | "PutItem" | "UpdateItem" | "Query" | "ConditionCheckItem";
export type TableAccess = { partitions: Partial<Record<PartitionPrefix, readonly TableAction[]>>; byTeamIndex?: boolean };
export type AccessName = StepFunctionName | "ingress" | "web" | "freee-mcp" | "reconcile-execution";

const { task: TASK, team: TEAM, installation: INSTALL, config: CONFIG } = PARTITIONS;
/** TaskStore on a task's partition: get, conditional put / update, loadHistory (the card refresher's Query). */
const TASK_ITEMS = ["GetItem", "PutItem", "UpdateItem", "Query"] as const;
/** Every card refresh resolves the workspace's bot token. */
const READ_INSTALLATION = ["GetItem"] as const;
const step: TableAccess = { partitions: { [TASK]: TASK_ITEMS, [INSTALL]: READ_INSTALLATION } };
/** L4 steps also read / write the agent setup (AgentSetupStore, `CONFIG#`). */
const agentStep: TableAccess = { partitions: { ...step.partitions, [CONFIG]: ["GetItem", "PutItem"] } };

export const TABLE_ACCESS: Record<AccessName, TableAccess> = {
  "create-task": step,
  // freee first: the workspace's freee connection status (`TEAM#`, status and company name only) before L1.
  "analyze-task": { partitions: { ...step.partitions, [TEAM]: ["GetItem"] } },
  "generate-prompt": step,
  "generate-process": step,
  // Reads from freee what each write will change: the workspace's freee connection and its refresh (`TEAM#`).
  "preview-process": { partitions: { ...step.partitions, [TEAM]: ["GetItem", "UpdateItem"] } },
  // A Process card is posted under the workspace's approval policy: its settings item, read only (`TEAM#`).
  "await-approval": { partitions: { ...step.partitions, [TEAM]: ["GetItem"] } },
  "handle-rejection": step,
  "expire-approval": step,
  // Starts the first run: the task, its execution record, and the Process card the approval left as it was.
  "start-run": step,
  // A task that could not even be created is audited under its workspace (Keys.audit without a task id).
  "record-pipeline-failure": { partitions: { ...step.partitions, [TEAM]: ["GetItem", "PutItem"] } },
  "start-session": agentStep,
  "poll-session": agentStep,
  "record-run-failure": agentStep,
  // Clicks, reruns, cancels and cards (task partitions); team settings and workspace audit (`TEAM#`); uninstall
  // tombstones and sealing plain items (`INSTALL#`); App Home lists (byTeam).
  ingress: {
    partitions: { [TASK]: TASK_ITEMS, [TEAM]: ["GetItem", "PutItem", "UpdateItem"], [INSTALL]: ["GetItem", "PutItem", "UpdateItem"] },
    byTeamIndex: true,
  },
  // The second line (EventBridge on FAILED / TIMED_OUT / ABORTED): the task, its audit and cards, the execution's
  // MCP scope, the agent setup for the interrupt, and the workspace audit of a task never created.
  "reconcile-execution": { partitions: { ...agentStep.partitions, [TEAM]: ["GetItem", "PutItem"] } },
  // The browser pages: Slack installs (`INSTALL#`), the freee connection saved by the callback and audited under
  // the workspace (`TEAM#`); after a connect, App Home is republished (its lists: byTeam). A reconnect to another
  // company invalidates the workspace's plans awaiting approval: their version, audit entry and card (`TASK#`).
  // Installs are put whole (never sealed in place: that is the ingress's), and the sweep's card refresh reads the
  // task's history by Query: no UpdateItem on `INSTALL#`, no GetItem on `TASK#` (test/infra/table-access.test.ts).
  web: { partitions: { [TASK]: ["PutItem", "UpdateItem", "Query"], [TEAM]: ["GetItem", "PutItem", "UpdateItem"], [INSTALL]: ["GetItem", "PutItem"] }, byTeamIndex: true },
  // The execution's approved steps, audit and the write-once ledger (`TASK#`; a claim checks the execution's status
  // in its transaction: ConditionCheckItem); the freee connection and its refresh lease (`TEAM#`); the workspace's
  // bot token for a file-box upload's Slack file (`INSTALL#`, read only). No Query: it never lists.
  "freee-mcp": { partitions: { [TASK]: ["GetItem", "PutItem", "UpdateItem", "ConditionCheckItem"], [TEAM]: ["GetItem", "UpdateItem"], [INSTALL]: READ_INSTALLATION } },
};

/** The byTeam index partitions App Home lists (Keys.teamTasksIndex, Keys.teamAuditIndex). */
export const BY_TEAM_LIST_KEYS = [`${TEAM}*#TASKS`, `${TEAM}*#AUDIT`] as const;

/** Reads need the table key's Decrypt; writes also its data-key actions (as CDK's own table grants). */
const KEY_READ = ["kms:Decrypt", "kms:DescribeKey"];
const KEY_WRITE = ["kms:Encrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*"];

/** Lambdas that open Slack installations (bot tokens for cards): they need the token key's Decrypt. */
export function readsInstallations(access: TableAccess): boolean {
  return access.partitions[INSTALL] !== undefined;
}

export function grantTableAccess(data: DataConstruct, fn: lambda.IFunction, access: TableAccess): void {
  const byActions = new Map<string, PartitionPrefix[]>();
  for (const [prefix, actions] of Object.entries(access.partitions) as [PartitionPrefix, readonly TableAction[]][]) {
    const key = [...actions].sort().join(",");
    byActions.set(key, [...(byActions.get(key) ?? []), prefix]);
  }
  for (const [key, prefixes] of byActions) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: key.split(",").map((a) => `dynamodb:${a}`),
        resources: [data.table.tableArn],
        conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": prefixes.map((p) => `${p}*`) } },
      }),
    );
  }
  if (access.byTeamIndex) {
    // Read-only, and only a workspace's task and audit lists: never the index partition of every workspace's
    // freee connection (`FREEE#REFRESH`, the scheduled refresh's alone: infra/constructs/freee-token-refresh.ts).
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ["dynamodb:Query"],
        resources: [`${data.table.tableArn}/index/${TABLE_KEYS.byTeamIndex}`],
        conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [...BY_TEAM_LIST_KEYS] } },
      }),
    );
  }
  const writes = Object.values(access.partitions).some((actions) => actions.some((a) => a === "PutItem" || a === "UpdateItem"));
  data.tableKey.grant(fn, ...KEY_READ, ...(writes ? KEY_WRITE : []));
}
