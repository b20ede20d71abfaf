import { approvableVia } from "../../../lib/preview/plan";
import { SFNClient } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { AuditLog } from "../../../lib/store/audit-log";
import { AdminDirectory, TeamSettingsStore, type ActionDeps, type Actor, type SlackRole } from "../../../lib/ingress/actions";
import { createLogger } from "../../../lib/core/observability/logger";
import type { CardRefresher, CardSubject } from "../../../lib/core/domain/card-refresher";
import { TaskStore } from "../../../lib/store/task-store";
import type { TestTable } from "../../support/dynamo";
import type { PreviewCompany, ProcessPreview } from "../../../lib/core/domain/preview";
import type { ProcessVersion } from "../../../lib/core/domain/records";

/** Action dependencies over a real (DynamoDB Local) table, a mocked Step Functions client and a recording card refresher. */
export function makeDeps(table: TestTable, patch: Partial<ActionDeps> = {}) {
  const store = new TaskStore(table.doc, table.tableName);
  const sfn = new SFNClient({ region: "us-east-1", credentials: { accessKeyId: "x", secretAccessKey: "x" } });
  const sfnMock = mockClient(sfn);
  const refreshed: { taskId: string; subject: CardSubject }[] = [];
  const cards: CardRefresher = {
    async refresh(taskId, subject) {
      refreshed.push({ taskId, subject });
    },
    async notifyThread() {
      throw new Error("actions never post thread notices");
    },
    async attachFile() {
      throw new Error("actions never attach files");
    },
    async audienceOf() {
      return "private";
    },
    async sendPrivately() {
      throw new Error("actions never send results privately");
    },
  };
  const log = createLogger("test-actions");
  const settings = new TeamSettingsStore(table.doc, table.tableName);
  // What users.info would say, by user id (absent = user_not_found); every lookup is recorded.
  const slackRoles = new Map<string, SlackRole>();
  const lookups: Actor[] = [];
  const admins = new AdminDirectory({
    adminUserIds: ["UADMIN"],
    settings,
    lookup: async (actor) => {
      lookups.push(actor);
      return slackRoles.get(actor.userId);
    },
  });
  const deps: ActionDeps = {
    store,
    doc: table.doc,
    sfn,
    audit: new AuditLog(store, log),
    cards,
    admins,
    groupMembers: { isMember: async () => false },
    limits: { maxReruns: 3 },
    executionRunArn: "arn:aws:states:us-east-1:123456789012:stateMachine:ExecutionRun",
    log,
    ...patch,
  };
  return { deps, store, sfnMock, refreshed, settings, slackRoles, lookups };
}

let counter = 0;
export function newThread(teamId = "T1") {
  counter += 1;
  return { teamId, channelId: "C1", messageTs: `1700000${String(counter).padStart(3, "0")}.000100` };
}

/** A task whose Prompt vN waits for approval with a task token. */
export async function taskAwaitingPrompt(store: TaskStore, opts: { teamId?: string; token?: string } = {}) {
  const { record: task } = await store.createTask({ thread: newThread(opts.teamId), requesterId: "UREQ", requestText: "給与明細を確認して", pipelineExecutionName: "p" });
  await store.transitionTask(task.taskId, "prompt_review");
  await store.createVersion("prompt", task.taskId, 1);
  await store.saveVersionContent("prompt", task.taskId, 1, { text: "給与明細を取得して確認する" });
  await store.openApproval("prompt", task.taskId, 1, opts.token ?? "TOKEN-prompt-1", { teamId: task.thread.teamId, requesterId: task.requesterId });
  return task;
}

/** A task whose Execution 1 is in the given state (running, failed, cancelled…). */
export async function taskWithExecution(store: TaskStore, status: "pending" | "running" | "failed" | "cancelled" | "completed" | "timed_out") {
  const { record: task } = await store.createTask({ thread: newThread(), requesterId: "UREQ", requestText: "経費を精算して", pipelineExecutionName: "p" });
  await store.transitionTask(task.taskId, "prompt_review");
  await store.transitionTask(task.taskId, "process_review");
  await store.updateTask(task.taskId, { approvedProcessVersion: 1 });
  const { executionNo } = await store.allocateExecution(task.taskId, { from: ["process_review"], maxExecutions: 4 });
  await store.createExecution(task.taskId, { executionNo, processVersion: 1, startedBy: "UREQ" });
  if (status !== "pending") {
    if (status === "cancelled") {
      await store.transitionExecution(task.taskId, 1, "running");
      await store.transitionExecution(task.taskId, 1, "cancelled", { set: { cancelledBy: "UREQ", cancelledAt: new Date().toISOString() } });
      await store.transitionTask(task.taskId, "cancelled");
    } else {
      await store.transitionExecution(task.taskId, 1, "running");
      if (status !== "running") {
        await store.transitionExecution(task.taskId, 1, status);
        await store.transitionTask(task.taskId, status === "completed" ? "completed" : "failed");
      }
    }
  }
  return task;
}

/** A write step and its preview, for the review tests (the preview as the pipeline stores it). */
export function payStep(order: number, amount = 300_000) {
  const step = { stepId: `s${order}`, order, tool: "freee_hr_update_basic_pay_rule", toolInput: { year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: amount } };
  const preview: ProcessPreview["steps"][number] = {
    stepId: step.stepId,
    tool: step.tool,
    title: "基本給の変更",
    summary: `山田 太郎 基本給 280,000円 → ${amount.toLocaleString("en-US")}円（2027年1月支給分から）`,
    details: [],
    changes: [],
    current: "read",
    resolved: [],
    warnings: [],
    problems: [],
  };
  return { step, preview };
}

/** A task whose Process v1 (these steps and preview) waits for approval with a task token. */
/**
 * A task whose Process v1 waits for approval. `company`: the preview read that company, and the version carries
 * its owner (workspace, requester) as the await step writes it.
 */
export async function taskAwaitingProcess(
  store: TaskStore,
  steps: ReturnType<typeof payStep>[],
  opts: { status?: ProcessPreview["status"]; token?: string; company?: PreviewCompany; teamId?: string } = {},
) {
  const { record: task } = await store.createTask({ thread: newThread(opts.teamId), requesterId: "UREQ", requestText: "基本給を変更して", pipelineExecutionName: "p" });
  await store.transitionTask(task.taskId, "prompt_review");
  await store.transitionTask(task.taskId, "process_review");
  await store.createVersion("process", task.taskId, 1, { basedOnPromptVersion: 1 });
  await store.saveVersionContent("process", task.taskId, 1, { steps: steps.map((s) => s.step) });
  const preview: ProcessPreview = {
    status: opts.status ?? "ready",
    previewedAt: new Date().toISOString(),
    steps: steps.map((s) => s.preview),
    reads: steps.length * 2,
    ...(opts.company === undefined ? {} : { company: opts.company }),
  };
  const version = await store.getVersionOrThrow("process", task.taskId, 1);
  const planned = { ...version, kind: "process" as const, steps: steps.map((s) => s.step), preview };
  await store.saveProcessPreview(task.taskId, 1, { steps: planned.steps, preview, approvableVia: approvableVia(planned as ProcessVersion) });
  const owner = opts.company === undefined ? undefined : { teamId: task.thread.teamId, requesterId: task.requesterId };
  await store.openApproval("process", task.taskId, 1, opts.token ?? "TOKEN-process-1", owner);
  return task;
}
