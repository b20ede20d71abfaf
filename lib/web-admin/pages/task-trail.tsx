import type { AuditEntry, Execution, ProcessVersion, PromptVersion } from "../../core/domain/records";
import { authServiceOf } from "../../core/messages/error-names";
import { failureMessageFor } from "../../core/messages/ja";
import { freeeRecordUrl } from "../../freee/web-links";
import type { TaskHistory } from "../../store/history";
import type { WriteRecord, WriteStepRef } from "../../store/write-ledger";
import { DOMAIN_LABEL, errorClassLabel, jst, layerLabel, ruleLabel, STATUS_LABEL } from "../labels";
import { slackThreadUrl } from "../links";

const VERSION_STATUS: Record<string, string> = { generating: "生成中", pending_approval: "承認待ち", approved: "承認", rejected: "却下", failed: "失敗", expired: "期限切れ" };
const VIA: Record<string, string> = { card: "カードの [承認]", full_plan: "計画全体の画面" };
const FAILURE_LAYERS = new Set(["L1", "L2", "L3", "L4"]);

/** タスク詳細: the request, each version with its decision, the change table, each run's writes, every error. */
export function TaskTrail(props: { history: TaskHistory; writes: Array<WriteRecord & WriteStepRef> }) {
  const { task, prompts, processes, executions, audit } = props.history;
  const errors = audit.filter((e) => e.action.startsWith("error."));
  return (
    <div>
      <h2>依頼</h2>
      <table>
        <tbody>
          <tr>
            <th>依頼者</th>
            <td>{task.requesterId}</td>
          </tr>
          <tr>
            <th>日時（JST）</th>
            <td>{jst(task.createdAt)}</td>
          </tr>
          <tr>
            <th>本文</th>
            <td>{task.requestText}</td>
          </tr>
          <tr>
            <th>領域</th>
            <td>{task.spec === undefined ? "—" : DOMAIN_LABEL[task.spec.domain]}</td>
          </tr>
          <tr>
            <th>状態</th>
            <td>{STATUS_LABEL[task.status]}</td>
          </tr>
          <tr>
            <th>Slack</th>
            <td>
              <a href={slackThreadUrl(task.thread)} rel="noreferrer">
                スレッドを開く
              </a>
            </td>
          </tr>
        </tbody>
      </table>

      <h2>版と承認</h2>
      <Versions versions={[...prompts, ...processes].sort((a, b) => a.createdAt.localeCompare(b.createdAt))} />

      <h2>変更内容（承認された計画）</h2>
      <ChangeTable process={processes.find((p) => p.version === task.approvedProcessVersion) ?? processes.at(-1)} />

      <h2>実行と freee への書き込み</h2>
      {executions.length === 0 ? <p>実行はありません。</p> : executions.map((e) => <Run execution={e} writes={props.writes.filter((w) => w.processVersion === e.processVersion)} />)}

      <h2>エラー</h2>
      {errors.length === 0 ? <p>エラーはありません。</p> : <Errors entries={errors} />}

      <h2>監査ログ</h2>
      <AuditTable entries={audit} />
    </div>
  );
}

function Versions(props: { versions: Array<PromptVersion | ProcessVersion> }) {
  if (props.versions.length === 0) return <p>版はまだありません。</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>版</th>
          <th>状態</th>
          <th>判断した人</th>
          <th>日時（JST）</th>
          <th>判断の場所・理由</th>
          <th>承認のルール</th>
        </tr>
      </thead>
      <tbody>
        {props.versions.map((v) => (
          <tr>
            <td>
              {v.kind === "prompt" ? "実行方針" : "実行計画"} v{v.version}
            </td>
            <td>{VERSION_STATUS[v.status] ?? v.status}</td>
            <td>{v.decision?.actorId ?? "—"}</td>
            <td>{v.decision === undefined ? "—" : jst(v.decision.decidedAt)}</td>
            <td>
              {[v.decision?.via === undefined ? undefined : VIA[v.decision.via], v.decision?.reason === undefined ? undefined : `理由: ${v.decision.reason}`].filter((s) => s !== undefined).join(" / ") || "—"}
            </td>
            <td>{v.kind === "process" ? [ruleText(v), ...(v.decision?.rule === undefined ? [] : [`この判断のルール: ${ruleLabel(v.decision.rule)}`])].join(" / ") : "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ChangeTable(props: { process: ProcessVersion | undefined }) {
  const steps = props.process?.preview?.steps ?? [];
  if (steps.length === 0) return <p>freee に書き込む変更はありません。</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>ステップ</th>
          <th>項目</th>
          <th>変更前</th>
          <th>変更後</th>
        </tr>
      </thead>
      <tbody>
        {steps.flatMap((s) =>
          (s.changes.length === 0 ? [{ label: s.summary, before: undefined, after: "" }] : s.changes).map((ch) => (
            <tr>
              <td>
                {s.stepId} {s.title}
              </td>
              <td>{ch.label}</td>
              <td>{ch.before ?? "—"}</td>
              <td>{ch.after}</td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

const WRITE_STATE: Record<string, string> = { in_flight: "書き込み中", unknown: "確認できない", done: "書き込み済み" };

function Run(props: { execution: Execution; writes: Array<WriteRecord & WriteStepRef> }) {
  const e = props.execution;
  const records = e.writes?.records ?? [];
  return (
    <section>
      <h3>
        実行 #{e.executionNo}（計画 v{e.processVersion}）: {e.status}
      </h3>
      <p class="muted">
        開始 {e.startedAt === undefined ? "—" : jst(e.startedAt)} / 終了 {e.endedAt === undefined ? "—" : jst(e.endedAt)} / 開始した人 {e.startedBy}
        {e.company === undefined ? "" : ` / 事業所 ${e.company.name ?? e.company.id}`}
      </p>
      {props.writes.length === 0 ? (
        <p>freee への書き込みの記録はありません。</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>ステップ</th>
              <th>ツール</th>
              <th>結果</th>
              <th>freee</th>
            </tr>
          </thead>
          <tbody>
            {props.writes.map((w) => {
              const record = records.find((r) => r.stepId === w.stepId);
              return (
                <tr>
                  <td>{w.stepId}</td>
                  <td>{w.tool}</td>
                  <td>{WRITE_STATE[w.state] ?? w.state}{w.state === "done" ? `（${jst(w.completedAt)}）` : w.state === "unknown" ? `（${w.reason}）` : ""}</td>
                  <td>{record === undefined ? "—" : <a href={freeeRecordUrl(record)} rel="noreferrer">freee で開く</a>}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Errors(props: { entries: AuditEntry[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th>日時（JST）</th>
          <th>層</th>
          <th>エラーの種類</th>
          <th>利用者に表示したメッセージ</th>
        </tr>
      </thead>
      <tbody>
        {props.entries.map((e) => {
          const layer = e.layer ?? e.action.slice("error.".length);
          return (
            <tr>
              <td>{jst(e.at)}</td>
              <td>{layerLabel(layer)}</td>
              <td>{errorClassLabel(e.errorType ?? "UnknownError", authServiceOf(e.errorType, e.details))}</td>
              <td>{shownMessage(e, layer)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/**
 * What the user was shown for an error: the message its entry carries (a click or a page answered in the words it
 * recorded), else the layer's message for the error's class, as the cards map it.
 */
function shownMessage(e: AuditEntry, layer: string): string {
  const recorded = e.details.userMessage;
  if (typeof recorded === "string" && recorded !== "") return recorded;
  return FAILURE_LAYERS.has(layer) ? failureMessageFor(layer as "L1", e.errorType) : "—";
}

export function AuditTable(props: { entries: AuditEntry[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th>日時（JST）</th>
          <th>操作</th>
          <th>実行者</th>
          <th>層</th>
          <th>エラー</th>
        </tr>
      </thead>
      <tbody>
        {props.entries.map((e) => (
          <tr>
            <td>{jst(e.at)}</td>
            <td>{e.action}</td>
            <td>{e.actor}</td>
            <td>{e.layer === undefined ? "—" : layerLabel(e.layer)}</td>
            <td>{e.errorType ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The rule a Process version was judged by (its snapshot of the approval policy) and the approvals it recorded. */
export function ruleText(v: ProcessVersion): string {
  const r = v.approvalRule;
  if (r === undefined) return "—";
  const parts = [
    r.autoApproved ? "読み取りのみ: 実行方針の承認で実行" : `必要な承認 ${r.required} 人${r.twoBecause.length > 0 ? `（${r.twoBecause.map((b) => (b === "amount" ? "金額" : "警告")).join("・")}のため）` : ""}`,
    r.selfApproval ? "依頼者本人の承認可" : "依頼者本人の承認不可",
    r.approverUserIds.length + r.approverUsergroupIds.length === 0 ? "承認者: 管理者" : `承認者: ${[...r.approverUserIds, ...r.approverUsergroupIds].join(", ")}`,
    ...(v.approvals ?? []).map((a) => `${a.actorId} が ${jst(a.at)} に承認（${ruleLabel(a.rule)}）`),
  ];
  return parts.join(" / ");
}
