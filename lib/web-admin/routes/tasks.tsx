import { Hono } from "hono";
import { TASK_STATUSES } from "../../core/domain/status";
import type { Task } from "../../core/domain/records";
import { AdminMessages } from "../../core/messages/ja";
import type { AdminEnv } from "../app";
import type { WebAdminDeps } from "../deps";
import { DOMAIN_LABEL, jst, STATUS_LABEL } from "../labels";
import { slackThreadUrl } from "../links";
import { MessagePage, Page } from "../pages/layout";
import { TaskTrail } from "../pages/task-trail";
import { periodOf } from "../period";
import { html } from "../render";

const USER_ID = /^[UW][A-Z0-9]+$/;

/**
 * タスク and タスク詳細. An admin or approver sees the workspace's tasks, a member only their own; the task of the
 * URL must be of the viewer's workspace (and a member's own), else it is 「ページが見つかりません」 — the same page
 * as for a task that does not exist, so an id from another workspace tells nothing.
 */
export function taskRoutes(deps: WebAdminDeps): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  const now = () => (deps.clock ?? (() => new Date()))();

  app.get("/admin/tasks", async (c) => {
    const session = c.get("session");
    const member = c.get("role") === "member";
    const period = periodOf({ since: c.req.query("since"), until: c.req.query("until"), month: c.req.query("month") }, now());
    const status = c.req.query("status");
    const domain = c.req.query("domain");
    const requester = c.req.query("requester");
    const requesterId = member ? session.userId : requester !== undefined && USER_ID.test(requester) ? requester : undefined;
    const { tasks, truncated } = await deps.reads.tasksInPeriod({ teamId: session.teamId, since: period.since, until: period.until, ...(requesterId === undefined ? {} : { requesterId }) });
    const shown = tasks.filter((t) => (status === undefined || status === "" || t.status === status) && (domain === undefined || domain === "" || t.spec?.domain === domain));
    return html(
      c,
      <Page title="タスク" viewer={c.get("viewer")}>
        <form method="get" action="/admin/tasks" class="filters">
          <label>
            開始日
            <input type="date" name="since" value={period.since} />
          </label>
          <label>
            終了日
            <input type="date" name="until" value={period.until} />
          </label>
          <label>
            状態
            <select name="status">
              <option value="">すべて</option>
              {TASK_STATUSES.map((s) => (
                <option value={s} selected={s === status}>
                  {STATUS_LABEL[s]}
                </option>
              ))}
            </select>
          </label>
          <label>
            領域
            <select name="domain">
              <option value="">すべて</option>
              {Object.entries(DOMAIN_LABEL).map(([d, label]) => (
                <option value={d} selected={d === domain}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          {member ? null : (
            <label>
              依頼者（ユーザー ID）
              <input type="text" name="requester" value={requesterId ?? ""} pattern="[UW][A-Z0-9]+" />
            </label>
          )}
          <button type="submit">絞り込む</button>
        </form>
        <p class="muted">
          {period.since} 〜 {period.until}（UTC）に作成されたタスク {shown.length} 件{truncated ? "（多すぎるため新しいものから表示しています。期間を短くしてください）" : ""}
        </p>
        <TaskTable tasks={shown} />
      </Page>,
    );
  });

  app.get("/admin/tasks/:taskId", async (c) => {
    const session = c.get("session");
    const history = await deps.reads.history(c.req.param("taskId"));
    const visible = history !== undefined && history.task.thread.teamId === session.teamId && (c.get("role") !== "member" || history.task.requesterId === session.userId);
    if (!visible) return html(c, <MessagePage title={AdminMessages.notFound} viewer={c.get("viewer")} link={{ href: "/admin/tasks", text: "タスク一覧へ" }} />, 404);
    const writes = await deps.reads.writes(history.task.taskId);
    return html(
      c,
      <Page title={`タスク詳細: ${history.task.spec?.title ?? history.task.taskId}`} viewer={c.get("viewer")}>
        <TaskTrail history={history} writes={writes} />
      </Page>,
    );
  });
  return app;
}

function TaskTable(props: { tasks: Task[] }) {
  if (props.tasks.length === 0) return <p>該当するタスクはありません。</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>作成（JST）</th>
          <th>依頼</th>
          <th>依頼者</th>
          <th>領域</th>
          <th>状態</th>
          <th>Slack</th>
        </tr>
      </thead>
      <tbody>
        {props.tasks.map((t) => (
          <tr>
            <td>{jst(t.createdAt)}</td>
            <td>
              <a href={`/admin/tasks/${encodeURIComponent(t.taskId)}`}>{t.spec?.title ?? t.requestText.slice(0, 80)}</a>
            </td>
            <td>{t.requesterId}</td>
            <td>{t.spec === undefined ? "—" : DOMAIN_LABEL[t.spec.domain]}</td>
            <td>{STATUS_LABEL[t.status]}</td>
            <td>
              <a href={slackThreadUrl(t.thread)} rel="noreferrer">
                スレッドを開く
              </a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
