import type { Child } from "hono/jsx";
import type { AdminRole } from "../deps";

/** The toasts a redirect may ask for by key (never text from the URL: nothing typed into a link reaches the page). */
export type ToastKind = "info" | "error";
export interface Toast {
  kind: ToastKind;
  text: string;
}

export interface Viewer {
  name: string;
  role: AdminRole;
  csrf: string;
}

const ROLE_LABEL: Record<AdminRole, string> = { admin: "管理者", approver: "承認者", member: "メンバー" };

/** One page of the admin: its header with what the viewer may open, a toast, the content. Server-rendered, no script. */
export function Page(props: { title: string; viewer?: Viewer; toast?: Toast | undefined; children?: Child }) {
  const { viewer } = props;
  return (
    <html lang="ja">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} | slack-mcp-agent 管理画面`}</title>
        <link rel="stylesheet" href="/admin/assets/admin.css" />
      </head>
      <body>
        <header>
          <strong>slack-mcp-agent 管理画面</strong>
          {viewer === undefined ? null : (
            <nav>
              {viewer.role === "member" ? null : <a href="/admin/dashboard">ダッシュボード</a>}
              <a href="/admin/tasks">タスク</a>
              {viewer.role === "member" ? null : <a href="/admin/audit">監査ログ</a>}
              {viewer.role === "admin" ? <a href="/admin/settings">設定</a> : null}
              <span class="who">
                {viewer.name}（{ROLE_LABEL[viewer.role]}）
              </span>
              <form method="post" action="/logout" class="inline">
                <input type="hidden" name="_csrf" value={viewer.csrf} />
                <button type="submit">サインアウト</button>
              </form>
            </nav>
          )}
        </header>
        {props.toast === undefined ? null : (
          <div class={`toast toast-${props.toast.kind}`} role={props.toast.kind === "error" ? "alert" : "status"}>
            {props.toast.text}
          </div>
        )}
        <main>
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </body>
    </html>
  );
}

/** A page that is only its message: 404, 503, 403 and the sign-in refusals. */
export function MessagePage(props: { title: string; detail?: string; viewer?: Viewer; link?: { href: string; text: string } }) {
  return (
    <Page title={props.title} {...(props.viewer === undefined ? {} : { viewer: props.viewer })}>
      {props.detail === undefined ? null : <p>{props.detail}</p>}
      {props.link === undefined ? null : (
        <p>
          <a href={props.link.href}>{props.link.text}</a>
        </p>
      )}
    </Page>
  );
}
