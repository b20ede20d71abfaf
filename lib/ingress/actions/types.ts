import type { Logger } from "@aws-lambda-powertools/logger";
import type { SFNClient } from "@aws-sdk/client-sfn";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { AuditLog } from "../../store/audit-log";
import type { Limits } from "../../core/config/limits";
import type { CardRefresher } from "../../core/domain/card-refresher";
import type { TaskStore } from "../../store/task-store";
import type { AdminCheck } from "./admins";
import type { UsergroupCheck } from "../usergroups";
import { ActionReplyMessages } from "../../core/messages/ja";

/** The reject modal's `max_length` (lib/ingress/reject-modal.ts uses it): checked again on the server. */
export const REASON_MAX_LENGTH = 2000;

/** Who clicked: taken from the verified Slack payload (team and user), never from the button value. */
export interface Actor {
  teamId: string;
  enterpriseId?: string;
  userId: string;
}

export interface ActionDeps {
  store: TaskStore;
  /** The table's client, for the one-request writes of the ack path (lib/store/decision.ts). */
  doc: DynamoDBDocumentClient;
  sfn: SFNClient;
  audit: AuditLog;
  cards: CardRefresher;
  /** Who besides the requester may act: ADMIN_USER_IDS, the workspace's list, Slack's admins and owners. */
  admins: AdminCheck;
  /** Membership of the approval policy's user groups (usergroups.users.list). */
  groupMembers: UsergroupCheck;
  limits: Pick<Limits, "maxReruns">;
  executionRunArn: string;
  log: Logger;
}

/**
 * What an action did. `applied`: this call made the change. `noop`: an earlier identical click already did it
 * (nothing changes twice). `refused`: nothing changed, and `message` (Japanese) tells the user why.
 */
export type ActionResult =
  | { outcome: "applied"; message?: string }
  | { outcome: "noop"; message?: string }
  | { outcome: "refused"; message: string };

export const ActionMessages = {
  notPermitted: "この操作は依頼者または管理者のみ実行できます。",
  notFound: "対象のタスクが見つかりません。",
  alreadyDecided: "このバージョンは既に承認または却下されています。",
  notCurrent: "このバージョンは最新ではありません。",
  cancelOnlyRunning: "実行中のタスクのみ中止できます。",
  cannotRerun: "この状態では再実行できません。",
  reasonRequired: "却下理由を入力してください。",
  reasonTooLong: ActionReplyMessages.reasonTooLong(REASON_MAX_LENGTH),
  cardRefreshed: ActionReplyMessages.cardRefreshed,
  /** A 中止 / 再実行 on a card that no longer told the truth: the rule, and that the card now shows the state. */
  staleCancel: `実行中のタスクのみ中止できます。${ActionReplyMessages.cardRefreshed}`,
  staleRerun: `この状態では再実行できません。${ActionReplyMessages.cardRefreshed}`,
} as const;
