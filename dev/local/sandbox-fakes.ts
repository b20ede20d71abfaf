import { createAutoplay, type AgentClaims } from "../fakes/anthropic/autoplay";
import { FakeAnthropic } from "../fakes/anthropic/fake-anthropic";
import { scriptedLayers } from "../fakes/anthropic/scripted-layers";
import { FakeFreee } from "../fakes/freee/fake-freee";
import { dealRecord, seedCompany, type CompanyData } from "../fakes/freee/state";
import { LOST_REPLY, type FakeReply } from "../fakes/http";
import { FakeSlack } from "../fakes/slack/fake-slack";
import { playSessionFault } from "../sandbox/fault-panel";
import type { SessionFault } from "../sandbox/fault-catalogue";

/**
 * The sandbox's upstreams are the same fakes the tests use, in the mode that plays a session by itself: Slack
 * keeps the channel the page renders, the model answers L1–L3 and plays approved steps against the MCP server,
 * freee is one seeded company. Each is mounted under /sandbox/* of the one local server.
 */
export const SANDBOX_COMPANY = { id: 1001, name: "サンドボックス株式会社" } as const;
export const SANDBOX_BOT = { teamId: "T0SANDBOX", botUserId: "USANDBOXBOT", botId: "BSANDBOX" } as const;
export const SANDBOX_BOT_TOKEN = "sandbox-slack-bot-token";
/** The sandbox page's user: the workspace's owner, so App Home shows them the admin surface (freee connect). */
export const SANDBOX_USER_ID = "USANDBOXUSER";
export const SCRIPTED_MODEL_API_KEY = "sandbox-scripted-model";
export const SANDBOX_FREEE_CLIENT = { id: "sandbox-client", secret: "sandbox-secret" } as const;
/** How the page names the sandbox's members (Slack shows display names, not ids). */
/**
 * The other members the page can act as (「操作するユーザー」), so each approval rule can be tried by hand: two
 * workspace admins (who approve by default, and are the 人事承認者 user group) and a member who may approve nothing.
 */
export const SANDBOX_MEMBERS = {
  approver: "USANDBOXAPPR1",
  secondApprover: "USANDBOXAPPR2",
  member: "USANDBOXMEMBER",
} as const;
/** The sandbox's channels: the page's own (private) and a public one to try what a public channel hides. */
export const SANDBOX_CHANNELS = { private: "CSANDBOX", public: "CGENERAL" } as const;
export const SANDBOX_HR_APPROVERS = { id: "S0SANDBOXHR", handle: "hr-approvers", name: "人事承認者" } as const;
export const SANDBOX_NAMES: Record<string, string> = {
  [SANDBOX_USER_ID]: "あなた",
  [SANDBOX_MEMBERS.approver]: "承認者 佐藤",
  [SANDBOX_MEMBERS.secondApprover]: "承認者 高橋",
  [SANDBOX_MEMBERS.member]: "メンバー 鈴木",
  [SANDBOX_BOT.botUserId]: "freee エージェント",
  // A user group, as Slack shows a <!subteam^…> mention (the page's names are no members: the page checks).
  [SANDBOX_HR_APPROVERS.id]: SANDBOX_HR_APPROVERS.name,
};

export function sandboxSlack(): FakeSlack {
  const slack = new FakeSlack({ team: { ...SANDBOX_BOT }, botTokens: [SANDBOX_BOT_TOKEN] });
  slack.workspace.addUser({ id: SANDBOX_USER_ID, teamId: SANDBOX_BOT.teamId, isPrimaryOwner: true });
  slack.workspace.addUser({ id: SANDBOX_MEMBERS.approver, teamId: SANDBOX_BOT.teamId, isAdmin: true });
  slack.workspace.addUser({ id: SANDBOX_MEMBERS.secondApprover, teamId: SANDBOX_BOT.teamId, isAdmin: true });
  slack.workspace.addUser({ id: SANDBOX_MEMBERS.member, teamId: SANDBOX_BOT.teamId });
  // Each member's display name as the page shows it (users.list: the web admin's approver fields list them by it).
  for (const user of slack.workspace.users.values()) {
    const name = SANDBOX_NAMES[user.id];
    if (name !== undefined) user.displayName = name;
  }
  slack.directory.addUsergroup({ ...SANDBOX_HR_APPROVERS, users: [SANDBOX_MEMBERS.approver, SANDBOX_MEMBERS.secondApprover] });
  // What is posted where follows Slack's own channel facts: the page's channel is private (cards show
  // everything), #general is public (HR amounts masked, HR results to the requester's DM).
  slack.directory.addChannel({ id: SANDBOX_CHANNELS.private, name: "sandbox", isPrivate: true });
  slack.directory.addChannel({ id: SANDBOX_CHANNELS.public, name: "general" });
  // The web admin's sign-in (the fake's OpenID endpoints) names the sandbox user as the page does.
  for (const [id, name] of Object.entries(SANDBOX_NAMES)) slack.openid.names.set(id, name);
  return slack;
}

/**
 * `claims`: how the self-playing agent reports its runs (chaos's freee cells make it claim every run done);
 * `sessionFault`: the fault panel's armed session fault, played instead of the approved steps.
 */
export function sandboxModel(stepDelayMs: number, claims: AgentClaims = "honest", sessionFault: () => SessionFault | undefined = () => undefined): { api: FakeAnthropic; stop(): Promise<void> } {
  const autoplay = createAutoplay({ stepDelayMs, claims });
  const faulted = new Set<Promise<void>>();
  const play = (session: Parameters<typeof autoplay.play>[0], fake: FakeAnthropic) => {
    const fault = sessionFault();
    if (fault === undefined) return autoplay.play(session, fake);
    const done = playSessionFault(fault, session, fake, stepDelayMs);
    faulted.add(done);
    void done.finally(() => faulted.delete(done));
  };
  const api = new FakeAnthropic({ apiKey: SCRIPTED_MODEL_API_KEY, respond: scriptedLayers, autoplay: play });
  return {
    api,
    stop: async () => {
      await autoplay.stop();
      await Promise.all([...faulted]);
    },
  };
}

export function sandboxFreee(now = new Date()): FakeFreee {
  const company = seedCompany(SANDBOX_COMPANY);
  company.deals.push(...recentDeals(company, now));
  return new FakeFreee({ companies: [company], clientId: SANDBOX_FREEE_CLIENT.id, clientSecret: SANDBOX_FREEE_CLIENT.secret });
}

/**
 * Deals of this month and last month (JST, from the stack's start), beside the seed's fixed November ones: a
 * 「今月の取引」 read shows rows, and the month filter visibly leaves last month's out.
 */
function recentDeals(company: CompanyData, now: Date): Record<string, unknown>[] {
  const jst = new Date(now.getTime() + 9 * 3600_000);
  const [y, m] = [jst.getUTCFullYear(), jst.getUTCMonth() + 1];
  const [ly, lm] = m === 1 ? [y - 1, 12] : [y, m - 1];
  const day = (year: number, month: number, d: number) => `${year}-${String(month).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
  return [
    dealRecord(company, { issue_date: day(ly, lm, 25), type: "expense", partner_id: 11, details: [{ account_item_id: 21, tax_code: 136, amount: 2_200, description: "先月のタクシー代" }] }),
    dealRecord(company, { issue_date: day(y, m, 1), type: "expense", details: [{ account_item_id: 23, tax_code: 136, amount: 3_300, description: "文房具" }] }),
    dealRecord(company, { issue_date: day(y, m, 1), type: "income", partner_id: 12, details: [{ account_item_id: 22, tax_code: 21, amount: 110_000, description: "今月分 業務委託" }] }),
  ];
}

/** One server carries every mount, so a reply a fault declares lost is answered as a dropped upstream would be. */
export function asResponse(reply: FakeReply): Response {
  return reply === LOST_REPLY ? new Response("upstream connection closed", { status: 502 }) : reply;
}
