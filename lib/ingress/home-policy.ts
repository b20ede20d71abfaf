import type { WebClient } from "@slack/web-api";
import type { Actor } from "./actions";
import { PolicyEditorTexts } from "../core/messages/policy";
import { AdminMessages } from "../core/messages/ja";
import type { HomeDeps } from "./home-service";
import { buildPolicyModal, parsePolicySubmission, policyLoadingView, policyMessageView, type PolicyMetadata } from "./policy-modal";
import { listUsergroups } from "./usergroups";
import { StateConflictError, TruncatedResponseError } from "../core/errors/taxonomy";

/**
 * The approval policy edited from App Home (admins only, audited). The click opens a loading modal at once (the
 * trigger_id lives 3 s), then the admin check and usergroups.list decide what replaces it: the editor, or the
 * refusal. The submission is checked again — admin, user groups that still exist, a whole amount — and saved
 * conditionally on the version the editor showed (TeamSettingsStore.savePolicy), so two admins editing at once
 * never merge silently; the save is audited with before and after.
 */

/** What a view_submission is answered with (Slack closes the modal on an empty ack). */
export type PolicyAck = { response_action: "errors"; errors: Record<string, string> } | { response_action: "update"; view: ReturnType<typeof policyMessageView> } | undefined;

export async function openPolicyEditor(client: WebClient, deps: HomeDeps, actor: Actor, triggerId: string): Promise<void> {
  const opened = await client.views.open({ trigger_id: triggerId, view: policyLoadingView() });
  if (opened.view?.id === undefined) throw new TruncatedResponseError("views.open answered ok without a view id", { details: { where: "policy editor" } });
  // The hash: an update never overwrites a view Slack changed in between.
  const target = { view_id: opened.view.id, ...(opened.view.hash === undefined ? {} : { hash: opened.view.hash }) };
  try {
    if (!(await deps.admins.isAdmin(actor))) {
      await refused(deps, actor, "open");
      await client.views.update({ ...target, view: policyMessageView(PolicyEditorTexts.refused) });
      return;
    }
    const [settings, groups] = await Promise.all([deps.settings.get(actor.teamId), listUsergroups(client)]);
    await client.views.update({ ...target, view: buildPolicyModal(settings.approvalPolicy, groups) });
  } catch (err) {
    await failed(deps, actor, "open", err);
    await client.views.update({ ...target, view: policyMessageView(PolicyEditorTexts.loadFailed) });
  }
}

/** The editor's submit: refused, sent back with the fields to fix, lost to another admin's save, or saved. */
export async function submitPolicyEditor(client: WebClient, deps: HomeDeps, actor: Actor, meta: PolicyMetadata | undefined, values: unknown): Promise<{ ack: PolicyAck; saved: boolean }> {
  if (meta === undefined) return { ack: update(PolicyEditorTexts.loadFailed), saved: false };
  try {
    if (!(await deps.admins.isAdmin(actor))) {
      await refused(deps, actor, "save");
      return { ack: update(PolicyEditorTexts.refused), saved: false };
    }
    // Both reads at once: the ack (and the Home published after it) must fit Slack's 3 s.
    const [groups, current] = await Promise.all([listUsergroups(client), deps.settings.get(actor.teamId)]);
    const parsed = parsePolicySubmission(values, groups);
    if (!parsed.ok) return { ack: { response_action: "errors", errors: parsed.errors }, saved: false };
    const before = current.approvalPolicy;
    let after;
    try {
      after = (await deps.settings.savePolicy(actor.teamId, parsed.policy, actor.userId, meta.seen ?? undefined)).approvalPolicy;
    } catch (err) {
      // The store names a refused condition StateConflictError: another admin saved since the editor opened.
      if (!(err instanceof StateConflictError)) throw err;
      deps.log.info("approval policy save lost to another admin's", { layer: "admin", teamId: actor.teamId });
      return { ack: update(PolicyEditorTexts.conflict), saved: false };
    }
    await deps.audit.record({ teamId: actor.teamId, action: "settings.approval_policy_saved", subject: `policy@${after.updatedAt ?? "-"}`, actor: actor.userId, layer: "admin", details: { before, after, via: "app_home" } });
    return { ack: undefined, saved: true };
  } catch (err) {
    await failed(deps, actor, "save", err);
    return { ack: update(AdminMessages.settingsSaveFailed), saved: false };
  }
}

const update = (message: string): PolicyAck => ({ response_action: "update", view: policyMessageView(message) });

/** A member who is no admin tried: nothing changes, and the attempt is on the audit log. */
async function refused(deps: HomeDeps, actor: Actor, step: "open" | "save"): Promise<void> {
  await deps.audit.record({ teamId: actor.teamId, action: "settings.change_refused", subject: `policy#${step}#${actor.userId}#${new Date().toISOString()}`, actor: actor.userId, layer: "admin", details: { setting: "approval_policy", step, reason: "not_admin", via: "app_home" } });
}

/** Slack or the table failed: logged, on the audit log as `error.admin`, and the admin told in the modal. */
async function failed(deps: HomeDeps, actor: Actor, step: "open" | "save", err: unknown): Promise<void> {
  deps.log.error("App Home policy editor failed", { layer: "admin", teamId: actor.teamId, step, error_type: err instanceof Error ? err.name : "unknown", error_message: err instanceof Error ? err.message : String(err) });
  await deps.audit
    .recordError({ teamId: actor.teamId, layer: "admin", subject: `policy#${step}#${actor.userId}#${new Date().toISOString()}`, actor: actor.userId, error: err })
    .catch((auditErr: unknown) => deps.log.error("audit of the policy editor's failure failed", { layer: "admin", error_type: auditErr instanceof Error ? auditErr.name : "unknown" }));
}
