import type { LocalExecution } from "../local/local-step-functions";
import type { FaultRule, ProxiedRequest } from "./fault-proxy";
import type { ChaosStack } from "./stack";
import { EXPECTED_PAY, FLOWS, type Flow } from "./flows";
import { ChaosUser, sleep } from "./user";
import { ONE_PERSON_POLICY } from "../../lib/core/domain/approval-policy";
import { PolicyMessages } from "../../lib/core/messages/policy";
import { createDocumentClient } from "../../lib/store/dynamo-client";
import { disconnectFreee } from "../../lib/store/freee-disconnect";
import { TeamSettingsStore } from "../../lib/store/team-settings";

/**
 * One whole task, as a person runs it in the channel: post the request, approve the Prompt, approve the
 * Process, then — depending on the scenario — let the run finish, cancel it while it runs, or rerun it after
 * a failure. Base failures (a scripted upstream answer, not the fault under test) make the failure paths run.
 */
export type ScenarioKind = "complete" | "cancel" | "rerun" | "pipeline-failure" | "run-failure" | "greeting" | "usergroup-approval" | "freee-missing";

export const REQUEST_TEXT = FLOWS.pay_rule.text;
/** A message that asks for no work on freee: L1 answers it in the thread and the task ends `answered`. */
export const GREETING_TEXT = "こんにちは";
export { EXPECTED_PAY };

export interface ScenarioRun {
  taskId: string;
  /** The request posted (dev/chaos/flows.ts). */
  flow: Flow;
  threadTs: string;
  /** What the user did and saw, in order (for the cell's detail). */
  trail: string[];
  /** Set when a step the user waited for never came. */
  stuck?: string;
}

// Generous: 2 cores shared by several people make a cell several times slower than on a quiet machine.
const WAIT_MS = 30_000;

export async function runScenario(chaos: ChaosStack, kind: ScenarioKind, flow: Flow = "pay_rule"): Promise<ScenarioRun> {
  const user = new ChaosUser(chaos.stack, chaos.slack, chaos.phases);
  const t0 = Date.now();
  const at = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
  armBaseFailure(chaos, kind);
  await prepareWorkspace(chaos, kind);
  const { ts, taskId, deliveries } = await user.post(kind === "greeting" ? GREETING_TEXT : FLOWS[flow].text);
  const run: ScenarioRun = { taskId, flow, threadTs: ts, trail: [`post → ${deliveries.map((d) => d.status).join(",")} @${at()}`] };
  if (kind === "greeting") return finish(chaos, run);

  // The click's phase is what the user does ("approve prompt v1"): matrix.ts finds a step's requests by it.
  const next = async (what: string, actionId: string, value: Record<string, unknown>): Promise<boolean> => {
    const button = await waitFor(chaos, taskId, () => user.findButton(ts, actionId, value));
    if (button === undefined) {
      if (!ended(chaos, taskId)) run.stuck = `waited ${WAIT_MS / 1000} s for ${what}`;
      run.trail.push(`${what}: not offered`);
      return false;
    }
    const told = user.ephemerals().filter((m) => m.text === PolicyMessages.membershipUnknown).length;
    const answers = await user.click(what, button, ts);
    run.trail.push(`${what} → ${answers.map((a) => a.status).join(",")} @${at()}`);
    // Told Slack could not say whether they are in the approvers' user group: the person clicks again, once.
    if (user.ephemerals().filter((m) => m.text === PolicyMessages.membershipUnknown).length > told) {
      const again = user.findButton(ts, actionId, value);
      run.trail.push(`${what}: asked to click again${again === undefined ? ", no button" : ""}`);
      if (again !== undefined) run.trail.push(`${what} again → ${(await user.click(what, again, ts)).map((a) => a.status).join(",")} @${at()}`);
    }
    return true;
  };

  if (!(await next("approve prompt v1", "approve_version", { taskId, kind: "prompt", version: 1 }))) return finish(chaos, run);
  if (!(await next("approve process v1", "approve_version", { taskId, kind: "process", version: 1 }))) return finish(chaos, run);

  if (kind === "cancel") {
    // Cancel while the agent is at work (its session exists and the run shows 中止).
    const running = await waitFor(chaos, taskId, async () => {
      const h = await chaos.direct.loadHistory(taskId);
      return h.executions[0]?.status === "running" && h.executions[0].sessionId !== undefined;
    });
    if (running === undefined) run.trail.push("run 1 never ran");
    else {
      const offered = await next("cancel run 1", "cancel_execution", { taskId, executionNo: 1 });
      if (offered) chaos.phases.mark("cancel");
    }
  }
  if (kind === "rerun") {
    const offered = await next("rerun run 1", "rerun_execution", { taskId, executionNo: 1 });
    if (offered) chaos.phases.mark("rerun");
  }
  const done = await finish(chaos, run);
  done.trail.push(`ended @${at()}`);
  return done;
}

/** The scripted upstream answers that make a scenario's failure path run (not the fault under test). */
function armBaseFailure(chaos: ChaosStack, kind: ScenarioKind): void {
  const badRequest = { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "scripted: the request was refused" } } };
  if (kind === "pipeline-failure") {
    // L2 answers 400: BadRequestError, not retried → RecordPipelineFailure.
    chaos.proxies["Anthropic Messages"].arm({ kind: "auth", base: true, reply: badRequest, when: (r) => r.consumer === "generate-prompt" });
  }
  if (kind === "rerun" || kind === "run-failure") {
    // Run 1's session cannot be created (400): BadRequestError → RecordRunFailure → failed + [再実行].
    chaos.proxies["Managed Agents"].arm({ kind: "auth", base: true, reply: badRequest, when: isSessionCreate });
  }
}

/** The approvers' user group (usergroup-approval): the chaos user is its one member. */
export const CHAOS_USERGROUP = { id: "SCHAOSPAY", handle: "payroll-approvers", name: "給与の承認者" } as const;

/**
 * What a scenario's workspace holds before the request: usergroup-approval — the policy names a user group (the
 * user in it) as the HR approvers, so the Process click asks Slack (usergroups.users.list); freee-missing — the
 * workspace's freee connection disconnected, so freee first stops the request at L1.
 */
async function prepareWorkspace(chaos: ChaosStack, kind: ScenarioKind): Promise<void> {
  if (kind !== "usergroup-approval" && kind !== "freee-missing") return;
  const doc = createDocumentClient(chaos.stack.env);
  const { teamId, userId } = chaos.stack.sandbox;
  try {
    if (kind === "freee-missing") {
      await disconnectFreee(doc, chaos.direct.tableName, { teamId, by: "chaos", at: new Date().toISOString() });
      return;
    }
    chaos.slack.directory.addUsergroup({ ...CHAOS_USERGROUP, users: [userId] });
    const settings = new TeamSettingsStore(doc, chaos.direct.tableName);
    const { updatedAt: _at, updatedBy: _by, ...policy } = ONE_PERSON_POLICY;
    const current = (await settings.get(teamId)).approvalPolicy.updatedAt;
    await settings.savePolicy(teamId, { ...policy, approvers: { ...policy.approvers, hr: { userIds: [], usergroupIds: [CHAOS_USERGROUP.id] } } }, "chaos", current);
  } finally {
    doc.destroy();
  }
}

export function isSessionCreate(r: ProxiedRequest): boolean {
  return r.method === "POST" && r.path.split("?")[0] === "/v1/sessions";
}

/** Wait until the task's executions have all ended (or the budget passes), then let late card work land. */
async function finish(chaos: ChaosStack, run: ScenarioRun): Promise<ScenarioRun> {
  const until = Date.now() + WAIT_MS;
  while (!ended(chaos, run.taskId) && Date.now() < until) await sleep(25);
  if (!ended(chaos, run.taskId)) {
    const live = executionsOf(chaos, run.taskId).filter((e) => e.status === "RUNNING").map((e) => `${e.machine}:${e.name}`);
    run.stuck ??= `still running after the scenario: ${live.join(", ")}`;
  }
  // The second line (the reconciler) runs after a machine ended FAILED / ABORTED: the truth includes its work.
  await chaos.stack.reconciler.idle();
  await sleep(200);
  await chaos.stack.reconciler.idle();
  return run;
}

export function executionsOf(chaos: ChaosStack, taskId: string): LocalExecution[] {
  return [...chaos.stack.local.executions.values()].filter((x) => x.name === taskId || x.name.startsWith(`${taskId}-e`));
}

/** Every state machine execution of the task has ended (a pipeline waiting for an approval has not). */
export function ended(chaos: ChaosStack, taskId: string): boolean {
  const mine = executionsOf(chaos, taskId);
  return mine.length > 0 && mine.every((x) => x.status !== "RUNNING");
}

/** Poll until `probe` gives a value, or the task ends without one, or the budget passes. */
async function waitFor<T>(chaos: ChaosStack, taskId: string, probe: () => T | undefined | false | Promise<T | undefined | false>): Promise<T | undefined> {
  const until = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (ended(chaos, taskId)) {
      // One last look: the button may have been posted by the very step that ended the machine.
      const last = await probe();
      return last || undefined;
    }
    if (Date.now() > until) return undefined;
    await sleep(20);
  }
}

export type { FaultRule };
