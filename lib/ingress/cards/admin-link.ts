/** Links a card may carry out of Slack (the freee messages name the web admin's 設定 with it: lib/core/messages/ja.ts). */
export interface CardLinks {
  /** The web admin (`…/admin`); absent: no link. */
  adminUrl?: string;
}
