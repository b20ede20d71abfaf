import { AccessMessages, AdminMessages, FreeePlaceMessages } from "../core/messages/ja";

/** The two HTML pages a browser sees at the end of the freee connect flow (OAuth row). */

export function successPage(companyName: string | undefined, headers: Record<string, string> = {}): Response {
  const company = companyName === undefined ? "" : `<p>事業所: ${escapeHtml(companyName)}</p>`;
  return page(200, "freee と接続しました", `<h1>freee と接続しました</h1>${company}<p>このページを閉じて Slack に戻ってください。</p>`, headers);
}

/** Always the catalogue text: no technical detail reaches the browser (the audit log has it). */
export function failurePage(status: number, headers: Record<string, string> = {}): Response {
  const message = AdminMessages.freeeAuthFailed;
  return page(status, message, `<h1>${message}</h1><p>${FreeePlaceMessages.home}</p><p>Slack の App Home から、もう一度 freee に接続してください。</p>`, headers);
}

/** The connect flow opened by someone who is not (or no longer) an admin of the workspace: nothing was saved. */
export function adminOnlyPage(headers: Record<string, string> = {}): Response {
  const title = AccessMessages.freeeAdminOnly;
  return page(403, title, `<h1>${title}</h1><p>${AccessMessages.freeeAdminOnlyDetail}</p>`, headers);
}

function page(status: number, title: string, body: string, headers: Record<string, string>): Response {
  const html = `<!doctype html><html lang="ja"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head><body>${body}</body></html>`;
  const h = new Headers(headers);
  h.set("content-type", "text/html; charset=utf-8");
  h.set("cache-control", "no-store");
  h.set("referrer-policy", "no-referrer");
  return new Response(html, { status, headers: h });
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
