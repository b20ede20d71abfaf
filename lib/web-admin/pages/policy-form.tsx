import { DOMAIN_LABEL, POLICY_DOMAINS, type ApprovalPolicy, type PolicyDomain } from "../../core/domain/approval-policy";
import { PolicyEditorTexts } from "../../core/messages/policy";
import { WebAdminMessages } from "../../core/messages/ja";
import type { People } from "../people";
import { jst } from "../labels";
import { ApproverPicker } from "./people";

const USER_ID = /^[UW][A-Z0-9]+$/;
const GROUP_ID = /^S[A-Z0-9]+$/;

/**
 * The policy form as posted (or as drawn from the stored policy): strings and ticks, nothing parsed yet, so a save
 * that fails draws the form again exactly as it was typed.
 */
export interface PolicyDraft {
  seen: string;
  selfApproveWrites: boolean;
  approvers: Record<PolicyDomain, string[]>;
  twoOnWarning: boolean;
  twoAboveYen: string;
  readsRun: Record<PolicyDomain, boolean>;
}

/** A field of the form that was refused, by its input's name, and why (shown beside it and in the toast). */
export interface FieldProblem {
  field: string;
  label: string;
  why: string;
}

export type PolicyInput = Omit<ApprovalPolicy, "updatedBy" | "updatedAt">;

const perDomain = <T,>(f: (d: PolicyDomain) => T) => Object.fromEntries(POLICY_DOMAINS.map((d) => [d, f(d)])) as Record<PolicyDomain, T>;

export const splitIds = (raw: string | undefined) => (raw ?? "").split(/[\s,、]+/).filter((s) => s !== "");

export function draftOf(p: ApprovalPolicy): PolicyDraft {
  return {
    seen: p.updatedAt ?? "",
    selfApproveWrites: p.selfApproveWrites,
    approvers: perDomain((d) => [...p.approvers[d].userIds, ...p.approvers[d].usergroupIds]),
    twoOnWarning: p.twoApprovers.onWarning,
    twoAboveYen: p.twoApprovers.aboveYen === null ? "" : String(p.twoApprovers.aboveYen),
    readsRun: perDomain((d) => p.readsRunOnPromptApproval[d]),
  };
}

export function draftFromForm(f: Record<string, string>): PolicyDraft {
  return {
    seen: f.seen ?? "",
    selfApproveWrites: f.selfApproveWrites === "1",
    approvers: perDomain((d) => splitIds(f[`approvers_${d}`])),
    twoOnWarning: f.twoOnWarning === "1",
    twoAboveYen: f.twoAboveYen ?? "",
    readsRun: perDomain((d) => f[`readsRun_${d}`] === "1"),
  };
}

/** The draft as a policy, or the first field that is not one (a user or group id, a whole number of yen). */
export function parseDraft(draft: PolicyDraft): { ok: true; policy: PolicyInput } | { ok: false; problem: FieldProblem } {
  for (const d of POLICY_DOMAINS) {
    const bad = draft.approvers[d].find((id) => !USER_ID.test(id) && !GROUP_ID.test(id));
    if (bad !== undefined) return { ok: false, problem: { field: `approvers_${d}`, label: WebAdminMessages.approversLabel(DOMAIN_LABEL[d]), why: WebAdminMessages.badApproverId(bad) } };
  }
  const yen = draft.twoAboveYen.trim();
  if (yen !== "" && (!/^\d+$/.test(yen) || !Number.isSafeInteger(Number(yen)))) return { ok: false, problem: { field: "twoAboveYen", label: WebAdminMessages.aboveYenLabel, why: PolicyEditorTexts.badAmount } };
  return {
    ok: true,
    policy: {
      selfApproveWrites: draft.selfApproveWrites,
      approvers: perDomain((d) => ({ userIds: draft.approvers[d].filter((i) => USER_ID.test(i)), usergroupIds: draft.approvers[d].filter((i) => GROUP_ID.test(i)) })),
      twoApprovers: { onWarning: draft.twoOnWarning, aboveYen: yen === "" ? null : Number(yen) },
      readsRunOnPromptApproval: perDomain((d) => draft.readsRun[d]),
    },
  };
}

/** The approval policy's form on 設定 (admins only), posted whole, conditional on the version it was shown (`seen`). */
export function PolicyForm(props: { draft: PolicyDraft; csrf: string; people: People; problem?: FieldProblem | undefined }) {
  const { draft: p, problem } = props;
  const invalid = (field: string): Record<string, string> => (problem?.field === field ? { "aria-invalid": "true", "aria-describedby": `${field}-problem` } : {});
  const why = (field: string) =>
    problem?.field === field ? (
      <span class="field-problem" id={`${field}-problem`}>
        {problem.why}
      </span>
    ) : null;
  return (
    <form method="post" action="/admin/settings/policy" id="policy">
      <fieldset>
        <legend>承認のポリシー（職務の分離）</legend>
        <input type="hidden" name="_csrf" value={props.csrf} />
        <input type="hidden" name="seen" value={p.seen} />
        <label>
          <input type="checkbox" name="selfApproveWrites" value="1" checked={p.selfApproveWrites} /> 依頼者本人が書き込みを承認できる
        </label>
        {POLICY_DOMAINS.map((d) => (
          <ApproverPicker name={`approvers_${d}`} label={WebAdminMessages.approversLabel(DOMAIN_LABEL[d])} chosen={p.approvers[d]} people={props.people} groups={true} invalid={invalid(`approvers_${d}`)}>
            {why(`approvers_${d}`)}
          </ApproverPicker>
        ))}
        <label>
          <input type="checkbox" name="twoOnWarning" value="1" checked={p.twoOnWarning} /> 警告のある書き込みは 2 人の承認
        </label>
        <label for="twoAboveYen">{WebAdminMessages.aboveYenLabel}</label>
        <input type="text" id="twoAboveYen" name="twoAboveYen" value={p.twoAboveYen} inputmode="numeric" {...invalid("twoAboveYen")} />
        {why("twoAboveYen")}
        {POLICY_DOMAINS.map((d) => (
          <label>
            <input type="checkbox" name={`readsRun_${d}`} value="1" checked={p.readsRun[d]} /> {DOMAIN_LABEL[d]}の読み取りのみの計画は実行方針の承認で実行
          </label>
        ))}
        <p>
          <button type="submit">保存</button>
        </p>
      </fieldset>
    </form>
  );
}

/** What is stored now, beside a form refused because another admin saved since it was opened. */
export function StoredPolicy(props: { policy: ApprovalPolicy; people: People }) {
  const p = props.policy;
  const name = (id: string) => (props.people.kind === "listed" ? (props.people.names.get(id) ?? id) : id);
  const who = (d: PolicyDomain) => [...p.approvers[d].userIds, ...p.approvers[d].usergroupIds].map(name).join("、") || "管理者";
  return (
    <section id="policy-stored">
      <h2>現在保存されている承認のポリシー</h2>
      <p class="muted">
        {p.updatedAt === undefined ? "—" : jst(p.updatedAt)}（{p.updatedBy === undefined ? "—" : name(p.updatedBy)}）
      </p>
      <ul>
        <li>依頼者本人による承認: {p.selfApproveWrites ? "可" : "不可"}</li>
        {POLICY_DOMAINS.map((d) => (
          <li>
            {DOMAIN_LABEL[d]}の承認者: {who(d)}
          </li>
        ))}
        <li>警告のある書き込みは 2 人の承認: {p.twoApprovers.onWarning ? "はい" : "いいえ"}</li>
        <li>2 人の承認が必要な金額: {p.twoApprovers.aboveYen === null ? "なし" : `${p.twoApprovers.aboveYen.toLocaleString("ja-JP")} 円を超える`}</li>
        <li>実行方針の承認だけで実行する読み取り: {POLICY_DOMAINS.filter((d) => p.readsRunOnPromptApproval[d]).map((d) => DOMAIN_LABEL[d]).join("、") || "なし"}</li>
      </ul>
    </section>
  );
}
