import { readCookie } from "./session";
import { FREEE_RETURN_COOKIE } from "./routes/settings";

/**
 * The freee connect flow started from the admin's 設定 (it set FREEE_RETURN_COOKIE) comes back to 設定 with a toast:
 * 「freee と接続しました」, or 「freee の認証に失敗しました」 when freee's OAuth failed (an error from freee, a
 * refused code, a state that does not verify). Started from App Home, the flow keeps its own pages. The callback's
 * own cookies (its state cookie cleared) are kept; the return cookie is cleared.
 */
export function returnToAdmin(callback: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
  return async (request) => {
    const response = await callback(request);
    if (readCookie(request.headers.get("cookie") ?? undefined, FREEE_RETURN_COOKIE) !== "1") return response;
    const notice = response.status === 200 ? "freee_connected" : response.status === 403 ? undefined : "freee_auth_failed";
    if (notice === undefined) return response; // not an admin: the page says so, the admin's 設定 would only refuse
    const headers = new Headers({ location: `/admin/settings?notice=${notice}`, "cache-control": "no-store" });
    for (const c of response.headers.getSetCookie()) headers.append("set-cookie", c);
    headers.append("set-cookie", `${FREEE_RETURN_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`);
    return new Response(null, { status: 302, headers });
  };
}
