import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ev } from "../../dev/fakes/anthropic";
import { PrivacyTexts } from "../../lib/core/messages/policy";
import { REQUESTER, startPipelineHarness, type PipelineHarness } from "../support/local-sfn";
import { runApprovedTask } from "./fixtures";

/**
 * The CSV of a long read holding HR personal data follows the DM rule (docs/slack.md, results with HR personal
 * data): in a public channel — Slack's conversations.info says so — it is uploaded to the requester's DM with the
 * results, never to the channel; the thread's card says where they went and names no employee. A DM Slack refuses
 * leaves the channel as empty of them, is audited, and the card says the DM failed.
 */
let h: PipelineHarness;
beforeAll(async () => {
  h = await startPipelineHarness();
  // The harness's channel made public (is_private false): the one fact that decides.
  h.slack.directory.addChannel({ id: "C0001", isPrivate: false, name: "general" });
});
afterAll(async () => h.close());

// Twelve employees (more than the card's ten rows) with their birth dates and basic pay: HR personal fields.
const EMPLOYEES = Array.from({ length: 12 }, (_, i) => ({ id: i + 1, display_name: `社員 ${String(i + 1).padStart(2, "0")}`, birth_date: `1990-01-${String(i + 1).padStart(2, "0")}`, basic_pay_amount: 250_000 + i * 1_000 }));
const script = () => ({
  polls: [
    {
      events: [
        ev.running(),
        ev.agentMessage("[step:s1]"),
        ev.mcpToolUse("freee_hr_list_employees", { year: 2026, month: 12 }),
        ev.mcpToolResult({ text: JSON.stringify({ employees: EMPLOYEES }) }),
        ev.agentMessage("[step:s2]\n一覧を確認しました。\n[result:done]"),
        ev.idle("end_turn"),
      ],
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  ],
});

async function run() {
  h.agents.scriptNextSession(script());
  const { taskId, thread, run } = await runApprovedTask(h);
  expect(run.status, String(run.cause)).toBe("SUCCEEDED");
  const history = await h.store.loadHistory(taskId);
  const execution = history.executions[0]!;
  const card = JSON.stringify(h.slack.workspace.messages.find((m) => m.ts === execution.cardTs)?.blocks);
  return { taskId, thread, history, execution, card };
}

/** Everything the app sent to the public channel (posts, updates, file shares), as text. */
const channelTraffic = (threadTs: string) =>
  h.slack.calls
    .filter((c) => ["chat.postMessage", "chat.update", "chat.postEphemeral", "files.completeUploadExternal"].includes(c.method) && (c.body.channel === "C0001" || c.body.channel_id === "C0001"))
    .filter((c) => c.method === "files.completeUploadExternal" || c.body.thread_ts === threadTs || h.slack.workspace.thread(threadTs).some((m) => m.ts === c.body.ts))
    .map((c) => ({ method: c.method, body: JSON.stringify(c.body) }));

describe("a long HR read in a public channel", () => {
  it("its CSV goes to the requester's DM with the results; the channel gets neither file nor employee, and the card says where", async () => {
    const { thread, history, execution, card } = await run();
    expect(execution.progress?.steps?.find((s) => s.stepId === "s1")?.personal).toEqual(["basic_pay_amount", "birth_date"]);
    const dm = execution.privateDelivery?.channelId;
    expect(dm).toMatch(/^D/);
    expect(execution.privateDelivery).toMatchObject({ to: "requester_dm", requesterId: REQUESTER, stepIds: ["s1"] });

    // The CSV: uploaded to the DM, all twelve rows with the personal columns, and recorded as delivered there.
    const uploads = h.slack.calls.filter((c) => c.method === "files.completeUploadExternal");
    expect(uploads.map((c) => c.body.channel_id)).toEqual([dm]);
    const shared = h.slack.workspace.messages.filter((m) => m.files !== undefined);
    expect(shared.map((m) => ({ channel: m.channel, text: m.text }))).toEqual([{ channel: dm, text: "読み取り結果「従業員」全 12 件（CSV）" }]);
    const file = h.slack.uploads.files.get(shared[0]!.files![0]!.id)!;
    const csv = file.content!.toString("utf8");
    expect(csv.split("\r\n")).toHaveLength(14); // header + 12 rows + the final line end
    expect(csv).toContain("社員 12");
    expect(execution.privateDelivery?.files).toEqual([{ stepId: "s1", fileId: file.id }]);
    expect(execution.resultFiles ?? []).toEqual([]);
    // The DM's own message: the table's first rows and where the rest is.
    const dmText = h.slack.workspace.messages.filter((m) => m.channel === dm && m.files === undefined).map((m) => JSON.stringify(m.blocks)).join("\n");
    expect(dmText).toContain("社員 01");
    expect(dmText).toContain("ほか 2 件はこの DM の CSV ファイルにあります。");

    // The public channel: no file, no employee, no birth date or pay, anywhere the app wrote.
    const traffic = channelTraffic(thread.messageTs);
    expect(traffic.length).toBeGreaterThan(0);
    expect(traffic.filter((t) => t.method === "files.completeUploadExternal")).toEqual([]);
    for (const t of traffic) expect(t.body).not.toMatch(/社員 \d\d|1990-01-|25\d,?000/);
    expect(card).toContain(PrivacyTexts.sentByDm(REQUESTER));
    expect(card).not.toContain("CSV");
    expect(history.audit.find((a) => a.action === "execution.results_sent_privately")).toMatchObject({ details: { sent: true, steps: ["s1"], fields: ["basic_pay_amount", "birth_date"] } });
  });

  it("a DM Slack refuses: nothing reaches the channel either — audited, and the card says the DM failed", async () => {
    const before = h.slack.calls.filter((c) => c.method === "files.completeUploadExternal").length;
    h.slack.failNext("conversations.open", { error: "user_disabled" });
    const { thread, history, execution, card } = await run();
    expect(execution.status).toBe("completed");
    expect(execution.privateDelivery).toMatchObject({ to: "requester_dm", requesterId: REQUESTER, files: [] });
    expect(execution.privateDelivery?.channelId).toBeUndefined();
    expect(h.slack.calls.filter((c) => c.method === "files.completeUploadExternal").length).toBe(before);
    for (const t of channelTraffic(thread.messageTs)) expect(t.body).not.toMatch(/社員 \d\d|1990-01-|25\d,?000/);
    expect(card).toContain(PrivacyTexts.dmFailed(REQUESTER));
    expect(history.audit.find((a) => a.action === "error.slack" && a.auditKey.includes("dm#execution#1"))).toBeDefined();
    expect(history.audit.find((a) => a.action === "execution.results_sent_privately")).toMatchObject({ details: { sent: false } });
  });
});
