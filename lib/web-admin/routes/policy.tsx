import { Hono } from "hono";
import { DOMAIN_LABEL, POLICY_DOMAINS, type ApprovalPolicy } from "../../core/domain/approval-policy";
import { allow, type AdminEnv } from "../app";
import type { WebAdminDeps } from "../deps";

const USER_ID = /^[UW][A-Z0-9]+$/;
const GROUP_ID = /^S[A-Z0-9]+$/;

/** The approval policy's form on 設定 (admins only), posted whole, conditional on the version it was shown. */
export function PolicyForm(props: { policy: ApprovalPolicy; csrf: string }) {
  const p = props.policy;
  return (
    <form method="post" action="/admin/settings/policy">
      <fieldset>
        <legend>承認のポリシー（職務の分離）</legend>
        <input type="hidden" name="_csrf" value={props.csrf} />
        <input type="hidden" name="seen" value={p.updatedAt ?? ""} />
        <label>
          <input type="checkbox" name="selfApproveWrites" value="1" checked={p.selfApproveWrites} /> 依頼者本人が書き込みを承認できる
        </label>
        {POLICY_DOMAINS.map((d) => (
          <label>
            {DOMAIN_LABEL[d]}の承認者（ユーザー ID・ユーザーグループ ID、空なら管理者）
            <input type="text" name={`approvers_${d}`} value={[...p.approvers[d].userIds, ...p.approvers[d].usergroupIds].join(", ")} />
          </label>
        ))}
        <label>
          <input type="checkbox" name="twoOnWarning" value="1" checked={p.twoApprovers.onWarning} /> 警告のある書き込みは 2 人の承認
        </label>
        <label>
          この金額（円）を超える書き込みは 2 人の承認（空なら無効）
          <input type="text" name="twoAboveYen" value={p.twoApprovers.aboveYen === null ? "" : String(p.twoApprovers.aboveYen)} inputmode="numeric" />
        </label>
        {POLICY_DOMAINS.map((d) => (
          <label>
            <input type="checkbox" name={`readsRun_${d}`} value="1" checked={p.readsRunOnPromptApproval[d]} /> {DOMAIN_LABEL[d]}の読み取りのみの計画は実行方針の承認で実行
          </label>
        ))}
        <p>
          <button type="submit">保存</button>
        </p>
      </fieldset>
    </form>
  );
}

/** POST /admin/settings/policy: parsed, saved through the store's conditional write, audited with before and after. */
export function policyRoutes(deps: WebAdminDeps): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  app.post("/admin/settings/policy", async (c) => {
    const refused = allow(c, "admin");
    if (refused !== undefined) return refused;
    const session = c.get("session");
    const f = c.get("form");
    const ids = (d: string) => (f[`approvers_${d}`] ?? "").split(/[\s,、]+/).filter((s) => s !== "");
    const yen = (f.twoAboveYen ?? "").trim();
    const bad = POLICY_DOMAINS.some((d) => ids(d).some((id) => !USER_ID.test(id) && !GROUP_ID.test(id))) || (yen !== "" && !/^\d+$/.test(yen));
    if (bad) return c.redirect("/admin/settings?notice=save_failed", 303);
    const policy = {
      selfApproveWrites: f.selfApproveWrites === "1",
      approvers: Object.fromEntries(POLICY_DOMAINS.map((d) => [d, { userIds: ids(d).filter((i) => USER_ID.test(i)), usergroupIds: ids(d).filter((i) => GROUP_ID.test(i)) }])) as ApprovalPolicy["approvers"],
      twoApprovers: { onWarning: f.twoOnWarning === "1", aboveYen: yen === "" ? null : Number(yen) },
      readsRunOnPromptApproval: Object.fromEntries(POLICY_DOMAINS.map((d) => [d, f[`readsRun_${d}`] === "1"])) as ApprovalPolicy["readsRunOnPromptApproval"],
    };
    try {
      const before = (await deps.reads.settings(session.teamId)).approvalPolicy;
      const saved = await deps.writes.savePolicy(session.teamId, policy, session.userId, f.seen === "" || f.seen === undefined ? undefined : f.seen);
      await deps.audit.record({ teamId: session.teamId, action: "settings.approval_policy_saved", subject: `policy@${saved.approvalPolicy.updatedAt ?? "-"}`, actor: session.userId, layer: "admin", details: { before, after: saved.approvalPolicy, via: "web_admin" } });
    } catch (err) {
      deps.log.error("web admin policy save failed", { layer: "admin", teamId: session.teamId, error_type: err instanceof Error ? err.name : "unknown", error_message: err instanceof Error ? err.message : String(err) });
      return c.redirect("/admin/settings?notice=save_failed", 303);
    }
    return c.redirect("/admin/settings?notice=saved", 303);
  });
  return app;
}
