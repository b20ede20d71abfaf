import type { App } from "@slack/bolt";
import * as z from "zod/mini";
import { ActionMessages, approve, loadForFullReview, loadForInput, reject, type Actor } from "../actions";
import { AccessMessages } from "../../core/messages/ja";
import { ActionIds } from "../cards";
import { APPROVE_PLAN_CALLBACK_ID, buildFullPlanModal, buildStepInputModal, PlanMetadataSchema } from "../plan-modal";
import { mayUseApp } from "../org-boundary";
import { buildRejectModal, reasonFromState, REASON_BLOCK_ID, REASON_MAX_LENGTH, REJECT_CALLBACK_ID, RejectMetadataSchema } from "../reject-modal";
import type { BoltDeps } from "./deps";
import { onButton, safeJson, submitter } from "./interaction";

const id = z.string().check(z.minLength(1), z.maxLength(200));
const VersionValueSchema = z.object({ taskId: id, kind: z.enum(["prompt", "process"]), version: z.int().check(z.positive()) });
const StepInputValueSchema = z.object({
  taskId: id,
  version: z.int().check(z.positive()),
  stepIds: z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.minLength(1), z.maxLength(200)),
});

/** Approve / reject a Prompt or Process version, and the Process review modals (the raw input, the whole plan). */
export function registerApprovalListeners(app: App, deps: BoltDeps): void {
  const button = { log: deps.log };
  onButton(app, { ...button, outsiders: { settings: deps.home.settings, admins: deps.actions.admins } }, ActionIds.approve, VersionValueSchema, (p) => approve(deps.actions, p.actor, p.value));

  onButton(app, button, ActionIds.reject, VersionValueSchema, async (p, client) => {
    if (p.triggerId === undefined) return undefined;
    // An outsider's reject click opens the modal too (the trigger_id dies in 3 s); its submit is refused.
    // First and only call: the trigger_id dies 3 s after the click. Who may reject, and whether the version is
    // still pending, is decided by the submit's conditional write and shown inside the modal.
    await client.views.open({ trigger_id: p.triggerId, view: buildRejectModal(p.value) });
    return undefined;
  });

  app.view(REJECT_CALLBACK_ID, async ({ ack, body, view }) => {
    const meta = safeJson(view.private_metadata, RejectMetadataSchema);
    const actor = submitter(body);
    if (meta === undefined || actor === undefined) return ack();
    if (!(await mayUseApp(deps.home.settings, outsiderFacts(actor, body.user?.team_id), () => deps.actions.admins.teamOf(actor)))) return ack({ response_action: "errors", errors: { [REASON_BLOCK_ID]: AccessMessages.externalUser } });
    const reason = reasonFromState(view.state?.values);
    if (reason === undefined || reason.trim() === "") {
      return ack({ response_action: "errors", errors: { [REASON_BLOCK_ID]: ActionMessages.reasonRequired } });
    }
    // reject() refuses an over-long reason too; the view answers it in the modal without touching the table.
    if ([...reason].length > REASON_MAX_LENGTH) {
      return ack({ response_action: "errors", errors: { [REASON_BLOCK_ID]: ActionMessages.reasonTooLong } });
    }
    const result = await reject(deps.actions, actor, meta, reason);
    // A refusal (not permitted, already decided) is shown inside the modal: there is no channel to post to.
    if (result.outcome !== "applied" && result.message !== undefined) {
      return ack({ response_action: "errors", errors: { [REASON_BLOCK_ID]: result.message } });
    }
    return ack();
  });

  // Process review: the raw input of a step, and the whole plan in the modal that approves it.
  onButton(app, button, ActionIds.showInput, StepInputValueSchema, async (p, client) => {
    if (p.triggerId === undefined) return undefined;
    const loaded = await loadForInput(deps.actions, p.actor, p.value);
    if (!loaded.ok) return loaded.result;
    const view = buildStepInputModal(loaded.version, p.value.stepIds);
    if (p.inModal) await client.views.push({ trigger_id: p.triggerId, view });
    else await client.views.open({ trigger_id: p.triggerId, view });
    return undefined;
  });

  onButton(app, button, ActionIds.reviewPlan, VersionValueSchema, async (p, client) => {
    if (p.value.kind !== "process" || p.triggerId === undefined) return undefined;
    const loaded = await loadForFullReview(deps.actions, p.actor, p.value);
    if (!loaded.ok) return loaded.result;
    await client.views.open({ trigger_id: p.triggerId, view: buildFullPlanModal(loaded.task, loaded.version) });
    return undefined;
  });

  app.view(APPROVE_PLAN_CALLBACK_ID, async ({ ack, body, view }) => {
    const meta = safeJson(view.private_metadata, PlanMetadataSchema);
    const actor = submitter(body);
    if (meta === undefined || actor === undefined) return ack();
    // The modal has no input to hang an error on: a refusal replaces it by the reason, with nothing to submit.
    const refusal = (message: string) => ({
      response_action: "update" as const,
      view: {
        type: "modal" as const,
        title: { type: "plain_text" as const, text: "承認できません" },
        close: { type: "plain_text" as const, text: "閉じる" },
        blocks: [{ type: "section", text: { type: "mrkdwn", text: message, verbatim: true } }],
      },
    });
    // A member of another organisation (Slack Connect) approves nothing, from the card or from here.
    if (!(await mayUseApp(deps.home.settings, outsiderFacts(actor, body.user?.team_id), () => deps.actions.admins.teamOf(actor)))) return ack(refusal(AccessMessages.externalUser));
    const result = await approve(deps.actions, actor, meta, "full_plan");
    if (result.outcome === "applied" || result.message === undefined) return ack();
    return ack(refusal(result.message));
  });
}

/** The Slack Connect facts of a modal's submitter: the installed workspace and the submitter's own. */
function outsiderFacts(actor: Actor, userTeamId: string | undefined) {
  return { installedTeamId: actor.teamId, ...(actor.enterpriseId === undefined ? {} : { installedEnterpriseId: actor.enterpriseId }), userTeamIds: [userTeamId] };
}
