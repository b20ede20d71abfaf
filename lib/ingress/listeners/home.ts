import type { App } from "@slack/bolt";
import { HomeActionIds } from "../home";
import { disconnectFreeeFromHome, publishHome, saveAdminsFromHome, saveExternalTeamsFromHome } from "../home-service";
import type { BoltDeps } from "./deps";
import { homeActor, safeJson, submitter } from "./interaction";
import { openPolicyEditor, submitPolicyEditor } from "../home-policy";
import { POLICY_CALLBACK_ID, PolicyMetadataSchema } from "../policy-modal";
import { PolicyEditorTexts } from "../../core/messages/policy";

/** The App Home tab: published when opened; its changes are admins' (home-service.ts checks, then re-publishes). */
export function registerHomeListeners(app: App, deps: BoltDeps): void {
  app.event("app_home_opened", async ({ event, context, client }) => {
    // Without a user there is no Home tab to publish (Slack refuses views.publish without user_id).
    if (event.tab !== "home" || context.teamId === undefined || typeof event.user !== "string" || event.user === "") return;
    await publishHome(client, deps.home, { teamId: context.teamId, userId: event.user, ...(context.enterpriseId === undefined ? {} : { enterpriseId: context.enterpriseId }) });
  });

  app.action(HomeActionIds.admins, async ({ ack, body, action, client }) => {
    await ack();
    const actor = homeActor(body);
    const selected = (action as { selected_users?: unknown }).selected_users;
    if (actor === undefined || !Array.isArray(selected)) return;
    await saveAdminsFromHome(client, deps.home, actor, selected.filter((u): u is string => typeof u === "string"));
  });
  app.action(HomeActionIds.externalTeams, async ({ ack, body, action, client }) => {
    await ack();
    const actor = homeActor(body);
    const value = (action as { value?: unknown }).value;
    if (actor === undefined) return;
    await saveExternalTeamsFromHome(client, deps.home, actor, typeof value === "string" ? value : "");
  });
  // The approval policy: the editor opens in a modal (admins only: home-policy.ts checks on open and on save).
  app.action(HomeActionIds.policyEdit, async ({ ack, body, client }) => {
    await ack();
    const actor = homeActor(body);
    const triggerId = (body as { trigger_id?: unknown }).trigger_id;
    if (actor !== undefined && typeof triggerId === "string") await openPolicyEditor(client, deps.home, actor, triggerId);
  });
  app.view(POLICY_CALLBACK_ID, async ({ ack, body, view, client }) => {
    const actor = submitter(body);
    if (actor === undefined) return ack();
    const { ack: answer, saved } = await submitPolicyEditor(client, deps.home, actor, safeJson(view.private_metadata, PolicyMetadataSchema), view.state?.values);
    await ack(answer);
    if (saved) await publishHome(client, deps.home, actor, PolicyEditorTexts.saved);
  });
  app.action(HomeActionIds.freeeDisconnect, async ({ ack, body, client }) => {
    await ack();
    const actor = homeActor(body);
    if (actor !== undefined) await disconnectFreeeFromHome(client, deps.home, actor);
  });
  // The connect button is a link (single-use, ten minutes: lib/freee/connect-link.ts); Slack also sends an action
  // when it is clicked. The link just opened is used up (or was dead, on a Home left open): the Home is published
  // again with a fresh one, so the button never stays dead.
  app.action(HomeActionIds.freeeConnect, async ({ ack, body, client }) => {
    await ack();
    const actor = homeActor(body);
    if (actor !== undefined) await publishHome(client, deps.home, actor);
  });
}
