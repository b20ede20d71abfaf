/**
 * The vocabulary of freee's refusals, shared by the freee client (lib/freee, which raises them as
 * `AuthError.details.reason`) and the messages (lib/core/messages/ja.ts, one Japanese text each).
 */

/** Why freee refused the access token itself, as the `code` of its 401 body says (no refresh helps). */
export type FreeeApiAuthReason =
  | "user_do_not_have_permission"
  | "company_not_found"
  | "freee_plan_limit"
  | "source_ip_address_limit"
  | "re_authorization_required"
  | "not_available_plan_limited_app"
  /** A 401 with a code freee has not documented: not refreshed, the code is kept in the details. */
  | "unrecognized";

/** Every `details.reason` a freee `AuthError` carries; each has its Japanese text in lib/core/messages/ja.ts. */
export type FreeeAuthReason =
  | FreeeApiAuthReason
  /** No connection item for the workspace. */
  | "not_connected"
  /** The connection is marked for reconnect (an earlier refresh was refused, or freee asked to re-authorize). */
  | "reauth_required"
  /** freee's token endpoint answered `invalid_grant`: the refresh token is spent, revoked or past 90 days. */
  | "refresh_rejected"
  /** `invalid_grant` for an authorization code (used, expired, or for another redirect URI): connect again. */
  | "code_rejected"
  /** Still `expired_access_token` with the freshly refreshed token. */
  | "token_rejected_after_refresh";
