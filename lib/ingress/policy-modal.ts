import type { KnownBlock, View } from "@slack/web-api";
import * as z from "zod/mini";
import { DOMAIN_LABEL, POLICY_DOMAINS, type ApprovalPolicy, type ApproverSet, type PolicyDomain } from "../core/domain/approval-policy";
import { PolicyEditorTexts as T } from "../core/messages/policy";
import { context, section, truncate } from "./cards/blocks";
import type { UsergroupChoice } from "./usergroups";

/**
 * The approval policy's editor in App Home (admins only): Slack's own selectors — members with a
 * multi_users_select, user groups with a multi_static_select of usergroups.list loaded when the modal opens — and
 * the two-approver and read-only rules. Its submission is parsed and checked here; lib/ingress/home-policy.ts
 * saves it conditionally on the version shown (private_metadata) and audits it.
 */
export const POLICY_CALLBACK_ID = "home_policy";
export const POLICY_ACTION_ID = "value";
export const PolicyBlocks = {
  self: "policy_self",
  users: (d: PolicyDomain) => `policy_users_${d}`,
  groups: (d: PolicyDomain) => `policy_groups_${d}`,
  two: "policy_two",
  above: "policy_above",
  reads: "policy_reads",
} as const;

/** What the editor was shown: the policy's `updatedAt` (null: none saved yet), the save's condition. */
export const PolicyMetadataSchema = z.object({ seen: z.nullable(z.string().check(z.minLength(1), z.maxLength(64))) });
export type PolicyMetadata = z.infer<typeof PolicyMetadataSchema>;

/** Slack's limit on a select's options. */
const MAX_OPTIONS = 100;
/** Above this the amount is a typo, not a threshold (and stays a safe integer). */
const MAX_YEN = 1_000_000_000_000;
const USER_ID = /^[UW][A-Z0-9]+$/;

const plain = (text: string) => ({ type: "plain_text" as const, text });
const option = (text: string, value: string) => ({ text: plain(truncate(text, 75)), value });
const groupOption = (g: UsergroupChoice) => option(`@${g.handle}（${g.name}）`, g.id);

/** The modal shown at once on the click (the trigger_id lives 3 s), replaced by the editor or the refusal. */
export function policyLoadingView(): View {
  return { type: "modal", title: plain(T.loadingTitle), close: plain(T.close), blocks: [section(T.loading)] };
}

/** A modal that only says something (refused, could not load, a save that lost the race). */
export function policyMessageView(message: string): View {
  return { type: "modal", title: plain(T.title), close: plain(T.close), blocks: [section(message)] };
}

export function buildPolicyModal(policy: ApprovalPolicy, groups: UsergroupChoice[] | "unavailable"): View {
  const blocks: KnownBlock[] = [section(T.intro)];
  blocks.push(checkboxes(PolicyBlocks.self, T.selfLabel, [option(T.selfOption, "1")], policy.selfApproveWrites ? ["1"] : []));
  const chosen = new Set(POLICY_DOMAINS.flatMap((d) => policy.approvers[d].usergroupIds));
  const listed = groups === "unavailable" ? [] : groups;
  // Slack takes 100 options: the groups already chosen come first, so saving never drops one silently.
  const ordered = [...listed.filter((g) => chosen.has(g.id)), ...listed.filter((g) => !chosen.has(g.id))];
  const shown = ordered.slice(0, MAX_OPTIONS);
  for (const d of POLICY_DOMAINS) {
    const set = policy.approvers[d];
    blocks.push({
      type: "input",
      block_id: PolicyBlocks.users(d),
      optional: true,
      label: plain(T.usersLabel(DOMAIN_LABEL[d])),
      hint: plain(T.approversHint),
      element: { type: "multi_users_select", action_id: POLICY_ACTION_ID, placeholder: plain(T.usersPlaceholder), ...(set.userIds.length > 0 ? { initial_users: set.userIds } : {}) },
    });
    const initial = shown.filter((g) => set.usergroupIds.includes(g.id)).map(groupOption);
    if (shown.length > 0) {
      blocks.push({
        type: "input",
        block_id: PolicyBlocks.groups(d),
        optional: true,
        label: plain(T.groupsLabel(DOMAIN_LABEL[d])),
        element: { type: "multi_static_select", action_id: POLICY_ACTION_ID, placeholder: plain(T.groupsPlaceholder), options: shown.map(groupOption), ...(initial.length > 0 ? { initial_options: initial } : {}) },
      });
    }
    // A group saved earlier that Slack no longer lists (deleted, disabled): said, and dropped on save.
    const gone = set.usergroupIds.filter((id) => !listed.some((g) => g.id === id));
    if (gone.length > 0) blocks.push(context(T.unknownUsergroup(gone)));
  }
  if (groups === "unavailable") blocks.push(context(T.usergroupsUnavailable));
  else if (listed.length === 0) blocks.push(context(T.noUsergroups));
  else if (listed.length > shown.length) blocks.push(context(T.moreUsergroups(shown.length, listed.length)));
  blocks.push(checkboxes(PolicyBlocks.two, T.twoLabel, [option(T.twoOnWarning, "warning")], policy.twoApprovers.onWarning ? ["warning"] : []));
  blocks.push({
    type: "input",
    block_id: PolicyBlocks.above,
    optional: true,
    label: plain(T.aboveLabel),
    element: { type: "number_input", action_id: POLICY_ACTION_ID, is_decimal_allowed: false, min_value: "0", ...(policy.twoApprovers.aboveYen === null ? {} : { initial_value: String(policy.twoApprovers.aboveYen) }) },
  });
  const reads = POLICY_DOMAINS.map((d) => option(T.readsOption(DOMAIN_LABEL[d]), d));
  blocks.push(checkboxes(PolicyBlocks.reads, T.readsLabel, reads, POLICY_DOMAINS.filter((d) => policy.readsRunOnPromptApproval[d])));
  const metadata: PolicyMetadata = { seen: policy.updatedAt ?? null };
  return { type: "modal", callback_id: POLICY_CALLBACK_ID, private_metadata: JSON.stringify(metadata), title: plain(T.title), submit: plain(T.save), close: plain(T.cancel), blocks };
}

function checkboxes(blockId: string, label: string, options: ReturnType<typeof option>[], checked: readonly string[]): KnownBlock {
  const initial = options.filter((o) => checked.includes(o.value));
  return { type: "input", block_id: blockId, optional: true, label: plain(label), element: { type: "checkboxes", action_id: POLICY_ACTION_ID, options, ...(initial.length > 0 ? { initial_options: initial } : {}) } };
}

type StateValue = { selected_users?: unknown; selected_options?: unknown; value?: unknown };
export type PolicyChange = Omit<ApprovalPolicy, "updatedBy" | "updatedAt">;
export type ParsedPolicy = { ok: true; policy: PolicyChange } | { ok: false; errors: Record<string, string> };

/**
 * The submitted state, checked as the server must (a crafted payload is no Slack client): member ids as Slack
 * writes them, user groups among those usergroups.list answers now, the amount a whole number of yen.
 */
export function parsePolicySubmission(values: unknown, groups: UsergroupChoice[] | "unavailable"): ParsedPolicy {
  const state = (values ?? {}) as Record<string, Record<string, StateValue> | undefined>;
  const at = (block: string): StateValue => state[block]?.[POLICY_ACTION_ID] ?? {};
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  const selected = (block: string) => (Array.isArray(at(block).selected_options) ? (at(block).selected_options as { value?: unknown }[]).map((o) => o?.value).filter((x): x is string => typeof x === "string") : []);
  const errors: Record<string, string> = {};
  const known = new Set(groups === "unavailable" ? [] : groups.map((g) => g.id));
  const approvers = {} as Record<PolicyDomain, ApproverSet>;
  for (const d of POLICY_DOMAINS) {
    const userIds = [...new Set(strings(at(PolicyBlocks.users(d)).selected_users))];
    if (userIds.some((u) => !USER_ID.test(u))) errors[PolicyBlocks.users(d)] = T.badUser;
    const usergroupIds = [...new Set(selected(PolicyBlocks.groups(d)))];
    const unknown = usergroupIds.filter((g) => !known.has(g));
    if (unknown.length > 0) errors[PolicyBlocks.groups(d)] = T.unknownUsergroup(unknown);
    approvers[d] = { userIds, usergroupIds };
  }
  const raw = at(PolicyBlocks.above).value;
  const yen = typeof raw === "string" ? raw.trim() : "";
  if (yen !== "" && (!/^\d+$/.test(yen) || Number(yen) > MAX_YEN)) errors[PolicyBlocks.above] = T.badAmount;
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const reads = selected(PolicyBlocks.reads);
  return {
    ok: true,
    policy: {
      selfApproveWrites: selected(PolicyBlocks.self).includes("1"),
      approvers,
      twoApprovers: { onWarning: selected(PolicyBlocks.two).includes("warning"), aboveYen: yen === "" ? null : Number(yen) },
      readsRunOnPromptApproval: { hr: reads.includes("hr"), accounting: reads.includes("accounting"), invoices: reads.includes("invoices") },
    },
  };
}

/** App Home's lines on the policy in force (admins and members alike; only admins get the edit button). */
export function policySummary(policy: ApprovalPolicy): string {
  const who = (s: ApproverSet) => {
    const named = [...s.userIds.map((u) => `<@${u}>`), ...s.usergroupIds.map((g) => `<!subteam^${g}>`)];
    return named.length > 0 ? named.join(" ") : "管理者";
  };
  const two = [policy.twoApprovers.onWarning ? "注意事項のある書き込み" : undefined, policy.twoApprovers.aboveYen === null ? undefined : `${policy.twoApprovers.aboveYen.toLocaleString("ja-JP")}円を超える書き込み`].filter((x) => x !== undefined);
  const reads = POLICY_DOMAINS.filter((d) => policy.readsRunOnPromptApproval[d]).map((d) => DOMAIN_LABEL[d]);
  const saved = policy.updatedAt === undefined ? "既定の設定" : `${policy.updatedAt.slice(0, 16).replace("T", " ")} UTC に${policy.updatedBy === undefined ? "" : ` <@${policy.updatedBy}> が`}保存`;
  return [
    T.heading,
    `• 依頼者本人による書き込みの承認: ${policy.selfApproveWrites ? "可" : "不可"}`,
    ...POLICY_DOMAINS.map((d) => `• ${DOMAIN_LABEL[d]}の書き込みの承認者: ${who(policy.approvers[d])}`),
    `• 2 人の承認: ${two.length > 0 ? two.join("・") : "なし"}`,
    `• 実行方針の承認だけで実行する読み取り: ${reads.length > 0 ? reads.join("・") : "なし"}`,
    `• ${saved}`,
  ].join("\n");
}
