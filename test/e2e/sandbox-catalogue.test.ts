import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SANDBOX_WHO, type LocalStack } from "../../dev/local/local-stack";
import { SANDBOX_COMPANY } from "../../dev/local/sandbox-fakes";
import { DEFAULT_CATALOGUE_SETTINGS, faultCatalogue, type FaultSpec } from "../../dev/sandbox/fault-catalogue";
import { taskIdFor } from "../../lib/core/domain/records";
import { AgentFailureMessages, failureMessageFor, FreeeThrottledMessages, SlackMessages, WriteOutcomeUnknownMessages } from "../../lib/core/messages/ja";
import { ActionIds } from "../../lib/ingress/cards/blocks";
import { SandboxPage } from "./sandbox-page";
import { waitFor } from "./support";

/**
 * Issue 16: every fault of the sandbox's panel reaches what its catalogue entry declares. Each entry is armed for
 * every attempt through the page's API on one `npm run dev` stack, a request is sent and each approval clicked;
 * then the thread shows the message that lib/core/messages/ja.ts maps the declared layer and error name to (and
 * no other failure message), the task ends as the error table says (the layer's version or the run failed,
 * `timed_out` for a run timeout), and the `error.<layer>` audit entry names the error. An entry the product
 * recovers from by itself (a lost write reply) completes, writing once. Each entry a retry row covers is also
 * armed once: the retry recovers and the task completes with no error. Waits are the shortest the stack allows:
 * freee's backoffs and rate-limit waits run at 1/100 of real time, and the run timeout (counted in polls of
 * LOCAL_WAIT_MS) stays several times above the slowest run here.
 */
let page: SandboxPage;
let stack: LocalStack;
beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = "true";
  page = await SandboxPage.start({
    L1_TIMEOUT_MS: "500",
    L2_TIMEOUT_MS: "500",
    L3_TIMEOUT_MS: "500",
    FREEE_READ_TIMEOUT_MS: "500",
    POLL_INTERVAL_SECONDS: "1",
    RUN_TIMEOUT_SECONDS: "100",
    LOCAL_FREEE_WAIT_DIVISOR: "100",
  });
  stack = page.stack;
  const freee = stack.freee!;
  const seeded = structuredClone(freee.companies);
  // Every case asks for the same pay: once one wrote it, the next plan would change nothing, and the preview takes
  // such a write out of the plan (a card with nothing to approve). Each case starts from the seeded company.
  resetFreeeData = () => void freee.companies.splice(0, freee.companies.length, ...structuredClone(seeded));
}, 180_000);
afterAll(() => page?.close());
let resetFreeeData: () => void;
beforeEach(() => resetFreeeData());

const post = (path: string, body: unknown) => page.post(path, body);
const thread = (ts: string) => page.thread(ts);

/** Every text the thread shows: fallback texts and every `text` inside the blocks. */
function textsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) textsOf(v, out);
  else if (typeof value === "object" && value !== null) for (const [k, v] of Object.entries(value)) if (k === "text" || typeof v === "object") textsOf(v, out);
  return out;
}

const FAILURE_MESSAGES = [...Object.values(SlackMessages), WriteOutcomeUnknownMessages.slack, FreeeThrottledMessages.slack];
const TERMINAL = new Set(["failed", "completed", "cancelled", "closed"]);

/** Send the request, click every approval the thread offers (once each), and return when the task has ended. */
async function drive(text: string) {
  const sent = await post("/sandbox/api/message", { text });
  expect(sent.status).toBe(200);
  const ts = sent.body.ts as string;
  const taskId = taskIdFor({ teamId: SANDBOX_WHO.teamId, channelId: SANDBOX_WHO.channelId, messageTs: ts });
  const clicked = new Set<string>();
  const mine = () => [...stack.local.executions.values()].filter((x) => x.name === taskId || x.name.startsWith(`${taskId}-e`));
  await waitFor(
    `task ${taskId} to end`,
    async () => {
      for (const m of await thread(ts)) {
        for (const b of m.blocks ?? []) {
          for (const el of b.elements ?? []) {
            if (el.action_id !== ActionIds.approve || el.value === undefined || clicked.has(el.value)) continue;
            clicked.add(el.value);
            expect((await post("/sandbox/api/action", { action_id: el.action_id, block_id: b.block_id, value: el.value, ts: m.ts })).status).toBe(200);
          }
        }
      }
      const task = await stack.store.getTask(taskId);
      return task !== undefined && TERMINAL.has(task.status) && mine().every((x) => x.status !== "RUNNING");
    },
  );
  await stack.reconciler.idle();
  return { ts, history: await stack.store.loadHistory(taskId), shown: textsOf(await thread(ts)).join("\n") };
}

const PAY = "来月から山田さんの基本給を30万円に変更して";
/** The guidance line each freee refusal's card carries (lib/core/messages/run-guidance.ts). */
const GUIDANCE: Readonly<Record<string, string>> = {
  "freee.403": "を拒否しました (403)。足りない権限: freee 人事労務の「従業員」の参照。",
  "freee.404": "freee に見つかりませんでした (404): 「1. ",
  "freee.429": "freee API の利用回数制限に達したため止まりました (429)。",
};
/** Writes that reached the scripted freee (a fault the proxy answers in freee's place reaches nothing). */
const writes = () => stack.freee!.apiRequests().filter((r) => r.method !== "GET").length;

// The entries as the stack builds them (its settings change labels and timeouts, never which faults there are),
// in the catalogue's order.
const ENTRIES: FaultSpec[] = faultCatalogue(DEFAULT_CATALOGUE_SETTINGS);
// Driven here with the pay rule request as one person's workspace; the approval entries need a policy that names a
// user group and a second person to click, so test/e2e/approval-policy.test.ts drives them.
const DRIVEN = ENTRIES.filter((f) => f.family !== "approval");

// First: the every-attempt entries end with the refused refresh, which leaves the connection needing a reconnect.
describe("every fault a retry row covers, armed once: retried, the task completes", { timeout: 120_000 }, () => {
  for (const { id } of DRIVEN.filter((f) => f.retried)) {
    it(id, async () => {
      expect((await post("/sandbox/api/faults/arm", { id, mode: "once" })).status).toBe(200);
      const before = writes();
      const { history: h, shown } = await drive(PAY);
      expect(stack.faults!.armed()?.hits, "the fault hit one request").toBe(1);
      await post("/sandbox/api/faults/clear", {});
      expect(h.task.status).toBe("completed");
      expect(h.audit.filter((a) => a.action.startsWith("error."))).toEqual([]);
      expect(FAILURE_MESSAGES.filter((m) => shown.includes(m))).toEqual([]);
      expect(writes() - before, "the approved write landed once").toBe(1);
    });
  }
});

describe("every fault of the sandbox's catalogue, armed for every attempt", { timeout: 120_000 }, () => {
  it("the stack's panel offers exactly these entries", () => {
    expect(stack.faults!.catalogue.map((f) => f.id)).toEqual(ENTRIES.map((f) => f.id));
  });

  for (const { id } of DRIVEN) {
    it(id, async () => {
      const spec = stack.faults!.catalogue.find((f) => f.id === id)!;
      expect((await post("/sandbox/api/faults/arm", { id, mode: "every" })).status).toBe(200);
      const before = writes();
      const { ts, history: h, shown } = await drive(PAY);
      expect(stack.faults!.armed()?.hits ?? 0, "the fault hit a request").toBeGreaterThan(0);
      await post("/sandbox/api/faults/clear", {});
      const errors = h.audit.filter((a) => a.action.startsWith("error."));

      if ("completes" in spec.outcome) {
        expect(h.task.status).toBe("completed");
        expect(errors).toEqual([]);
        expect(FAILURE_MESSAGES.filter((m) => shown.includes(m))).toEqual([]);
        expect(writes() - before, "the approved write landed once").toBe(1);
        expect(stack.freee!.company(SANDBOX_COMPANY.id).employees.find((e) => e.id === 1)!.payRules.at(-1)?.pay_amount).toBe(300_000);
        return;
      }
      if (!("layer" in spec.outcome)) throw new Error(`${id}: not an entry the pay rule request drives`);
      const { layer, error, reason } = spec.outcome;
      // The seed's message word for word, then the lines that name the place (the ホーム tab, the web admin).
      const [seedText, ...placeLines] = failureMessageFor(layer, error).split("\n");
      expect(FAILURE_MESSAGES.filter((m) => shown.includes(m)), "the message, and no other").toEqual([seedText]);
      // (The sandbox links its web admin too, so the line goes on past the ホーム tab: its start is what is common.)
      for (const line of placeLines) expect(shown, "the place the message names").toContain(line.includes("タブ") ? line.slice(0, line.indexOf("タブ") + 2) : line);
      if (reason !== undefined) expect(shown).toContain(AgentFailureMessages[reason]);
      expect(h.task).toMatchObject({ status: "failed", failure: { layer, errorName: error } });
      expect(errors.find((a) => a.action === `error.${layer}`)?.errorType).toBe(error);
      if (layer === "L2") expect(h.prompts.at(-1)).toMatchObject({ status: "failed", errorName: error });
      if (layer === "L3") expect(h.processes.at(-1)).toMatchObject({ status: "failed", errorName: error });
      if (layer !== "L4") expect(h.executions).toEqual([]);
      if (layer === "L4") {
        expect(h.executions.at(-1)).toMatchObject({ status: error === "RunTimeoutError" ? "timed_out" : "failed" });
        // [再実行] is offered unless freee refused a permission (a rerun would meet the same 403).
        const offered = (await thread(ts)).some((m) => (m.blocks ?? []).some((b) => (b.elements ?? []).some((el) => el.action_id === ActionIds.rerun)));
        expect(offered, "a [再実行] button").toBe(id !== "freee.403");
        // freee's refusals say what to do: the missing permission, what was not found, when to try again.
        const guidance = GUIDANCE[id];
        if (guidance !== undefined) expect(shown).toContain(guidance);
      }
      // The faults answer in freee's place, so a failed task wrote nothing (an unknown outcome included).
      expect(writes() - before).toBe(0);
    });
  }
});
