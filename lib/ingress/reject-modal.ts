import type { View } from "@slack/web-api";
import * as z from "zod/mini";
import { REASON_MAX_LENGTH } from "./actions/types";
import { truncate } from "./cards/blocks";

export const REJECT_CALLBACK_ID = "reject_reason";
export const REASON_BLOCK_ID = "reason";
export const REASON_ACTION_ID = "reason_input";
/** The modal's `max_length`, enforced again on the submit (lib/ingress/actions: Slack's client check is no server guarantee). */
export { REASON_MAX_LENGTH };

/** private_metadata carries only ids (never a task token). */
export const RejectMetadataSchema = z.object({
  taskId: z.string().check(z.minLength(1), z.maxLength(200)),
  kind: z.enum(["prompt", "process"]),
  version: z.int().check(z.positive()),
});
export type RejectMetadata = z.infer<typeof RejectMetadataSchema>;

/** The modal [却下] opens: one required multi-line reason (却下理由必須). */
export function buildRejectModal(metadata: RejectMetadata): View {
  const what = metadata.kind === "prompt" ? "実行方針" : "実行ステップ";
  return {
    type: "modal",
    callback_id: REJECT_CALLBACK_ID,
    private_metadata: JSON.stringify(metadata),
    title: { type: "plain_text", text: "却下理由" },
    submit: { type: "plain_text", text: "却下する" },
    close: { type: "plain_text", text: "キャンセル" },
    blocks: [
      { type: "section", text: { type: "mrkdwn", verbatim: true, text: truncate(`${what} v${metadata.version} を却下します。理由は再生成に使われます。`) } },
      {
        type: "input",
        block_id: REASON_BLOCK_ID,
        label: { type: "plain_text", text: "却下理由" },
        element: { type: "plain_text_input", action_id: REASON_ACTION_ID, multiline: true, max_length: REASON_MAX_LENGTH },
      },
    ],
  };
}

/** The reason typed into the modal, from a view_submission's state values (undefined when absent). */
export function reasonFromState(values: unknown): string | undefined {
  const value = (values as Record<string, Record<string, { value?: unknown }>> | undefined)?.[REASON_BLOCK_ID]?.[REASON_ACTION_ID]?.value;
  return typeof value === "string" ? value : undefined;
}
