import { Hono } from "hono";
import { buildLedger, type LedgerOutcome } from "../../store/ledger";
import type { AdminEnv } from "../app";
import { allow } from "../app";
import { auditCsv } from "../csv";
import type { WebAdminDeps } from "../deps";
import { errorClassLabel, layerLabel, OUTCOME_COLOUR, OUTCOME_LABEL } from "../labels";
import { DayChart, FailureChart } from "../pages/chart";
import { Page } from "../pages/layout";
import { AuditTable } from "../pages/task-trail";
import { daysOf, periodOf, type Period } from "../period";
import { html } from "../render";

const AUDIT_PAGE_ROWS = 500;

/**
 * ダッシュボード (the period's ledger, built by the same buildLedger over the same audit entries as `npm run report
 * -- --team`) and 監査ログ (the entries, and their CSV), for admins and approvers.
 */
export function reportRoutes(deps: WebAdminDeps): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  const now = () => (deps.clock ?? (() => new Date()))();
  const period = (q: (name: string) => string | undefined): Period => periodOf({ month: q("month"), since: q("since"), until: q("until") }, now());

  app.get("/admin/dashboard", async (c) => {
    const refused = allow(c, "admin", "approver");
    if (refused !== undefined) return refused;
    const p = period((n) => c.req.query(n));
    const entries = await deps.reads.audit(c.get("session").teamId, p);
    const ledger = buildLedger(entries, p);
    const total = ledger.tasks.length;
    return html(
      c,
      <Page title="ダッシュボード" viewer={c.get("viewer")}>
        <PeriodForm action="/admin/dashboard" period={p} />
        <p class="muted">
          {p.since} 〜 {p.until}（UTC）の台帳です。<code>{`npm run report -- --since ${p.since} --until ${p.until} --team ${c.get("session").teamId}`}</code> と同じ集計です。
        </p>
        <div class="chart">
          <DayChart ledger={ledger} days={daysOf(p)} />
          <table id="outcomes">
            <thead>
              <tr>
                <th>結果</th>
                <th>件数</th>
              </tr>
            </thead>
            <tbody>
              {(Object.keys(OUTCOME_LABEL) as LedgerOutcome[]).map((o) => (
                <tr data-outcome={o}>
                  <td>
                    <svg width="10" height="10" aria-hidden="true">
                      <rect width="10" height="10" fill={OUTCOME_COLOUR[o]} />
                    </svg>{" "}
                    {OUTCOME_LABEL[o]}
                  </td>
                  <td class="num">{ledger.byOutcome[o]}</td>
                </tr>
              ))}
              <tr data-outcome="total">
                <th>合計</th>
                <td class="num">{total}</td>
              </tr>
            </tbody>
          </table>
        </div>
        <h2>失敗したタスクの原因（層と種類）</h2>
        <p class="muted">失敗・タイムアウトしたタスクを、終わらせたエラーで 1 件ずつ数えています（App Home と同じ数です）。</p>
        <div class="chart">
          <FailureChart failures={ledger.failuresByClass} label={(f) => `${layerLabel(f.layer)} / ${errorClassLabel(f.errorClass, f.service)}`} />
          {ledger.failuresByClass.length === 0 ? null : (
            <table id="failures">
              <thead>
                <tr>
                  <th>層</th>
                  <th>種類</th>
                  <th>件数</th>
                </tr>
              </thead>
              <tbody>
                {ledger.failuresByClass.map((f) => (
                  <tr data-layer={f.layer} data-class={f.errorClass} data-service={f.service}>
                    <td>{layerLabel(f.layer)}</td>
                    <td>{errorClassLabel(f.errorClass, f.service)}</td>
                    <td class="num">{f.count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </Page>,
    );
  });

  app.get("/admin/audit", async (c) => {
    const refused = allow(c, "admin", "approver");
    if (refused !== undefined) return refused;
    const p = period((n) => c.req.query(n));
    const entries = await deps.reads.audit(c.get("session").teamId, p);
    const query = new URLSearchParams({ since: p.since, until: p.until }).toString();
    return html(
      c,
      <Page title="監査ログ" viewer={c.get("viewer")}>
        <PeriodForm action="/admin/audit" period={p} />
        <p>
          <a href={`/admin/audit.csv?${query}`}>CSV をダウンロード（{entries.length} 件、UTF-8 BOM 付き）</a>
        </p>
        {entries.length > AUDIT_PAGE_ROWS ? <p class="muted">画面には新しい {AUDIT_PAGE_ROWS} 件を表示しています。すべての記録は CSV にあります。</p> : null}
        <AuditTable entries={entries.slice(-AUDIT_PAGE_ROWS).reverse()} />
      </Page>,
    );
  });

  app.get("/admin/audit.csv", async (c) => {
    const refused = allow(c, "admin", "approver");
    if (refused !== undefined) return refused;
    const p = period((n) => c.req.query(n));
    const entries = await deps.reads.audit(c.get("session").teamId, p);
    return c.body(auditCsv(entries), 200, {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="audit-${c.get("session").teamId}-${p.since}-${p.until}.csv"`,
    });
  });
  return app;
}

function PeriodForm(props: { action: string; period: Period }) {
  return (
    <form method="get" action={props.action} class="filters">
      <label>
        開始日
        <input type="date" name="since" value={props.period.since} />
      </label>
      <label>
        終了日
        <input type="date" name="until" value={props.period.until} />
      </label>
      <button type="submit">表示</button>
    </form>
  );
}
