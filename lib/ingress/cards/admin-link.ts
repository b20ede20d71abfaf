import { FreeeFirstMessages, SlackMessages } from "../../core/messages/ja";
import { context, type Card } from "./blocks";

/** Links a card may carry out of Slack. */
export interface CardLinks {
  /** The web admin (`…/admin`); absent: no link. */
  adminUrl?: string;
}

/**
 * Under 「freee への接続に失敗しました。管理画面で接続状態を確認してください。」 (and its line naming the ホーム tab), and
 * under the freee-first stop, the web admin's 設定 as a link (where the connection's status is shown and an admin
 * reconnects).
 */
export function adminLinkBlocks(message: string, links: CardLinks): Card["blocks"] {
  const aboutFreee = message.startsWith(SlackMessages.freeeConnectionFailed) || message.startsWith(FreeeFirstMessages.notUsable);
  if (links.adminUrl === undefined || !aboutFreee) return [];
  return [context(`<${links.adminUrl}/settings|管理画面で接続状態を確認する>`)];
}
