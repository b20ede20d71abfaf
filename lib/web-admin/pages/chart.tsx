import type { Ledger, LedgerOutcome } from "../../store/ledger";
import { OUTCOME_COLOUR, OUTCOME_LABEL } from "../labels";

const OUTCOMES = Object.keys(OUTCOME_LABEL) as LedgerOutcome[];

/**
 * Tasks per day by outcome, as stacked bars: each task of the ledger counted once, on the day of its last entry (the
 * entry that decided its outcome), so the bars add up to the ledger's totals beside them.
 */
export function perDay(ledger: Ledger, days: readonly string[]): Array<{ day: string; counts: Record<LedgerOutcome, number> }> {
  const rows = days.map((day) => ({ day, counts: Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<LedgerOutcome, number> }));
  const index = new Map(days.map((d, i) => [d, i]));
  for (const task of ledger.tasks) {
    const i = index.get(task.lastAt.slice(0, 10));
    if (i !== undefined) rows[i]!.counts[task.outcome] += 1;
  }
  return rows;
}

export function DayChart(props: { ledger: Ledger; days: readonly string[] }) {
  const rows = perDay(props.ledger, props.days);
  const max = Math.max(1, ...rows.map((r) => OUTCOMES.reduce((n, o) => n + r.counts[o], 0)));
  const [w, h, left, bottom] = [Math.max(320, rows.length * 18 + 50), 220, 36, 28];
  const barW = (w - left - 10) / Math.max(1, rows.length);
  const scale = (n: number) => (n / max) * (h - bottom - 10);
  return (
    <svg xmlns="http://www.w3.org/2000/svg" width={w} height={h} viewBox={`0 0 ${w} ${h}`} role="img" aria-label="日ごとのタスク数（結果別）">
      <title>日ごとのタスク数（結果別）</title>
      <line x1={left} y1={h - bottom} x2={w - 5} y2={h - bottom} stroke="#999" />
      <text x={4} y={14} font-size="11" fill="#333">
        {max}
      </text>
      <text x={4} y={h - bottom} font-size="11" fill="#333">
        0
      </text>
      {rows.map((r, i) => {
        let y = h - bottom;
        const x = left + i * barW;
        return (
          <g data-day={r.day}>
            {OUTCOMES.filter((o) => r.counts[o] > 0).map((o) => {
              const bh = scale(r.counts[o]);
              y -= bh;
              return (
                <rect x={x + 1} y={y} width={Math.max(1, barW - 2)} height={bh} fill={OUTCOME_COLOUR[o]} data-outcome={o} data-count={r.counts[o]}>
                  <title>{`${r.day} ${OUTCOME_LABEL[o]} ${r.counts[o]}`}</title>
                </rect>
              );
            })}
            {i % 5 === 0 ? (
              <text x={x} y={h - 10} font-size="10" fill="#333">
                {r.day.slice(5)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}

/** Failures by layer and class, as horizontal bars with their counts. */
export function FailureChart(props: { failures: Ledger["failuresByClass"]; label: (f: Ledger["failuresByClass"][number]) => string }) {
  const rows = props.failures.slice(0, 12);
  if (rows.length === 0) return <p>この期間のエラーはありません。</p>;
  const max = Math.max(1, ...rows.map((r) => r.count));
  const [w, rowH, labelW] = [560, 22, 330];
  return (
    <svg xmlns="http://www.w3.org/2000/svg" width={w} height={rows.length * rowH + 10} viewBox={`0 0 ${w} ${rows.length * rowH + 10}`} role="img" aria-label="失敗したタスクの原因（層と種類）">
      <title>失敗したタスクの原因（層と種類）</title>
      {rows.map((r, i) => (
        <g data-layer={r.layer} data-class={r.errorClass}>
          <text x={0} y={i * rowH + 15} font-size="11" fill="#333">
            {props.label(r)}
          </text>
          <rect x={labelW} y={i * rowH + 4} width={((w - labelW - 40) * r.count) / max} height={rowH - 8} fill="#e01e5a" />
          <text x={labelW + ((w - labelW - 40) * r.count) / max + 4} y={i * rowH + 15} font-size="11" fill="#333">
            {r.count}
          </text>
        </g>
      ))}
    </svg>
  );
}
