import { Hono } from "hono";
import { DOMAIN_LABEL, POLICY_DOMAINS } from "../../core/domain/approval-policy";
import { StateConflictError } from "../../core/errors/taxonomy";
import { PolicyEditorTexts } from "../../core/messages/policy";
import { AdminMessages, WebAdminMessages } from "../../core/messages/ja";
import { allow, type AdminEnv } from "../app";
import type { WebAdminDeps } from "../deps";
import { draftFromForm, parseDraft } from "../pages/policy-form";
import { recordFailure, renderSettings } from "./settings";

/**
 * POST /admin/settings/policy: parsed, saved through the store's conditional write on the version the form was
 * shown, audited with before and after. Refused, it answers 設定 with the form as it was posted: 400 naming the
 * field, 409 when another admin saved since the page was opened (the stored policy shown beside the form, which now
 * carries that version: saving again replaces it knowingly), 503 when the table failed.
 */
export function policyRoutes(deps: WebAdminDeps): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  app.post("/admin/settings/policy", async (c) => {
    const refused = allow(c, "admin");
    if (refused !== undefined) return refused;
    const session = c.get("session");
    const draft = draftFromForm(c.get("form"));
    const parsed = parseDraft(draft);
    if (!parsed.ok) {
      const text = `${AdminMessages.settingsSaveFailed}。${WebAdminMessages.fieldRefused(parsed.problem.label, parsed.problem.why)}`;
      return renderSettings(deps, c, 400, { kind: "error", text }, { policy: { draft, problem: parsed.problem } });
    }
    // A user group Slack no longer lists (deleted since the page was drawn) is refused, as App Home's editor does;
    // when Slack cannot list them the ids stand (an unknown group has no members, so it approves nobody).
    const people = await deps.people.of(session.teamId);
    if (people.failure !== undefined) await recordFailure(deps, c, "people", people.failure, WebAdminMessages.peopleUnavailable);
    if (people.kind === "listed" && people.groups !== "unavailable") {
      const known = new Set(people.groups.map((g) => g.id));
      for (const d of POLICY_DOMAINS) {
        const unknown = parsed.policy.approvers[d].usergroupIds.filter((id) => !known.has(id));
        if (unknown.length === 0) continue;
        const problem = { field: `approvers_${d}`, label: WebAdminMessages.approversLabel(DOMAIN_LABEL[d]), why: PolicyEditorTexts.unknownUsergroup(unknown) };
        return renderSettings(deps, c, 400, { kind: "error", text: `${AdminMessages.settingsSaveFailed}。${WebAdminMessages.fieldRefused(problem.label, problem.why)}` }, { policy: { draft, problem } });
      }
    }
    let before;
    try {
      before = (await deps.reads.settings(session.teamId)).approvalPolicy;
      const saved = await deps.writes.savePolicy(session.teamId, parsed.policy, session.userId, draft.seen === "" ? undefined : draft.seen);
      await deps.audit.record({ teamId: session.teamId, action: "settings.approval_policy_saved", subject: `policy@${saved.approvalPolicy.updatedAt ?? "-"}`, actor: session.userId, layer: "admin", details: { before, after: saved.approvalPolicy, via: "web_admin" } });
    } catch (err) {
      if (err instanceof StateConflictError && before !== undefined) {
        // Another admin's save came first: nothing merged. The refusal is on the audit log, the form kept as typed.
        deps.log.info("web admin policy save lost to another admin's", { layer: "admin", teamId: session.teamId });
        await deps.audit.record({ teamId: session.teamId, action: "settings.change_refused", subject: `policy#save#${session.userId}#${new Date().toISOString()}`, actor: session.userId, layer: "admin", details: { setting: "approval_policy", reason: "stale_version", seen: draft.seen, via: "web_admin" } });
        const stored = (await deps.reads.settings(session.teamId)).approvalPolicy;
        return renderSettings(deps, c, 409, { kind: "error", text: `${AdminMessages.settingsSaveFailed}。${WebAdminMessages.policyConflict}` }, { policy: { draft: { ...draft, seen: stored.updatedAt ?? "" }, showStored: true } });
      }
      const text = `${AdminMessages.settingsSaveFailed}。${WebAdminMessages.saveUnavailable}`;
      await recordFailure(deps, c, "approval_policy", err, text);
      return renderSettings(deps, c, 503, { kind: "error", text }, { policy: { draft } });
    }
    return c.redirect("/admin/settings?notice=saved", 303);
  });
  return app;
}
