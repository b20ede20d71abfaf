import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ProcessPreview } from "../../lib/core/domain/preview";
import type { Execution, ProcessStep } from "../../lib/core/domain/records";
import { renderCard } from "../../lib/ingress/cards";
import type { CardSubject } from "../../lib/core/domain/card-refresher";
import { baseTask, execution, history, processVersion } from "./fixtures";
import { seedsFor } from "../support/seeds";

/**
 * Adversarial: forged card lines. No text from freee or the model can change a card's structure. Every outside string a card shows — freee's
 * names and values in the preview and the read tables, the models' titles, the agent's summary — is drawn at
 * random from pieces that mean something to Slack (line breaks, `* _ ~ \``, `<…>`, <!channel>, <@U…>, bare
 * URLs, a forged 「✅ *承認済み (v1)*」 line), and each card must have the same blocks, the same card lines, the
 * same formatting marks and links as with plain text in their place; every mrkdwn text object is verbatim.
 * The seeds are a fixed list (test/support/seeds.ts; FUZZ_SEEDS overrides it), each printed with any failure.
 */
const SEEDS = seedsFor([20261202]);
const RUNS = 150;

const PIECES = [
  "\n", "\r\n", "\r", "\u2028", "\u2029", "\u000b", "\u0085", "\t", "*", "_", "~", "`", "```", ">", "<", "&", "|", "•",
  "<!channel>", "<!here>", "<@U0123ABCD>", "<#C0123|general>", "<https://evil.example|freee で開く>", "https://evil.example/x", "www.evil.example",
  "@channel", "#general", "\n✅ *承認済み (v1)*\n", "\n• 明細 1: 旅費交通費 1,000円\n", "> ", ":white_check_mark:", "\u202e", "\u0000",
  "山田", "株式会社", "🎉", "👨‍👩‍👧", "a", "1", " ",
];
const outside = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 12 }).map((parts) => parts.join(""));

const PAY = { year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 300_000 };
const steps: ProcessStep[] = [
  { stepId: "s1", order: 1, tool: "freee_accounting_list_deals", toolInput: { limit: 10 } },
  { stepId: "s2", order: 2, tool: "freee_hr_update_basic_pay_rule", toolInput: PAY },
  { stepId: "s3", order: 3, tool: "agent_decide", toolInput: { instruction: "x" } },
];

interface Outside {
  name: string;
  value: string;
  summary: string;
  cell: string;
  title: string;
}

function cards(o: Outside) {
  const preview: ProcessPreview = {
    status: "ready",
    previewedAt: "2026-12-01T00:00:00Z",
    reads: 1,
    steps: [
      {
        stepId: "s2",
        tool: "freee_hr_update_basic_pay_rule",
        title: o.title,
        summary: `${o.name} 基本給 280,000円 → 300,000円`,
        details: [`取引先: ${o.name}`, `備考: ${o.value}`],
        changes: [],
        current: "read",
        resolved: [{ name: o.name, label: o.value, id: 7, kind: "partner" } as never],
        warnings: [o.value],
        problems: [],
      },
    ],
  };
  const process = processVersion(1, { status: "approved", steps: steps.map((s) => (s.stepId === "s3" ? { ...s, toolInput: { instruction: o.value } } : s)), preview, decision: { actorId: "UAPP", at: "2026-12-01T00:00:00Z", decision: "approved" } as never });
  const ran: Partial<Execution> = {
    status: "completed",
    resultSummary: o.summary,
    writes: { done: ["s2"], earlier: [], unknown: [], records: [{ stepId: "s2", kind: "employee", id: 1 }], readAt: "2026-12-01T00:00:00Z" },
    progress: {
      seenEventIds: [],
      completedSteps: 3,
      toolErrors: [],
      steps: [
        { stepId: "s1", state: "done", okCalls: 1, errorCalls: 0, note: o.value, table: { label: o.title, columns: ["取引先", o.name], rows: [[o.cell, o.name], ["x", o.cell]], total: 2 } },
        { stepId: "s2", state: "done", okCalls: 1, errorCalls: 0 },
        { stepId: "s3", state: "done", okCalls: 1, errorCalls: 0, note: o.value },
      ],
    },
  };
  const h = history({
    task: baseTask({ status: "completed", executionCount: 1, currentProcessVersion: 1, spec: { title: o.title, intent: o.value, missingInformation: [o.name] } as never }),
    processes: [process],
    executions: [execution(1, ran)],
  });
  const subjects: CardSubject[] = [{ kind: "task" }, { kind: "process" }, { kind: "execution", executionNo: 1 }];
  return subjects.map((subject) => renderCard(h, subject, { maxReruns: 3 }));
}

type MrkdwnText = { type: "mrkdwn"; text: string; verbatim?: boolean };

function textsOf(value: unknown): MrkdwnText[] {
  if (Array.isArray(value)) return value.flatMap(textsOf);
  if (value === null || typeof value !== "object") return [];
  const v = value as Record<string, unknown>;
  if (v.type === "mrkdwn" && typeof v.text === "string") return [v as unknown as MrkdwnText];
  return Object.values(v).flatMap(textsOf);
}

/**
 * What a card is made of, whatever the outside text: its blocks, and per mrkdwn text its card lines (a line of
 * the card's own is every line but the quoted lines of outside text, which must each begin with "> "), the
 * formatting marks that style text, and the `<…>` forms Slack turns into links and mentions.
 */
function structure(blocks: unknown[]) {
  return {
    blocks: blocks.map((b) => (b as { type: string }).type),
    texts: textsOf(blocks).map((t) => {
      const lines = t.text.split("\n");
      return {
        verbatim: t.verbatim,
        cardLines: lines.filter((l) => !l.startsWith("> ")).length,
        // Slack styles nothing inside code: marks are counted outside it; backticks (which open and close it) everywhere.
        marks: (outsideCode(t.text).match(/[*~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g) ?? []).length,
        backticks: (t.text.match(/`/g) ?? []).length,
        links: t.text.match(/<[^>]*>/g) ?? [],
      };
    }),
  };
}

const outsideCode = (text: string) => text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");

const PLAIN: Outside = { name: "山田", value: "a", summary: "a", cell: "a", title: "a" };

describe("card structure under outside text (property, seed printed on failure)", () => {
  it.each(SEEDS)("task, Process and Execution cards keep their blocks, lines, marks and links (seed %i)", (SEED) => {
    const expected = cards(PLAIN).map((c) => structure(c.blocks));
    for (const card of expected) for (const t of card.texts) expect(t.verbatim).toBe(true);
    fc.assert(
      fc.property(fc.record({ name: outside, value: outside, summary: outside, cell: outside, title: outside }), (o) => {
        const got = cards(o).map((c) => structure(c.blocks));
        expect(got, `seed ${SEED}: ${JSON.stringify(o)}`).toEqual(expected);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("a freee partner name that forges card lines stays one plain line (the reported case)", () => {
    const forged = "東京商事\n✅ *承認済み (v1)*\n• 明細 1: 旅費交通費 1,000円 ~取消~ <!channel> https://evil.example";
    const [, processCard, executionCard] = cards({ ...PLAIN, name: forged, summary: `登録しました。${forged}` });
    const texts = textsOf([processCard!.blocks, executionCard!.blocks]).map((t) => t.text);
    const all = texts.join("\n");
    expect(all).not.toMatch(/^✅ \*承認済み/m);
    expect(all).not.toMatch(/^• 明細 1/m);
    expect(texts.map(outsideCode).join("\n")).not.toContain("~取消~");
    expect(all).not.toContain("<!channel>");
    expect(all).toContain("東京商事 ✅ ＊承認済み (v1)＊ • 明細 1: 旅費交通費 1,000円 ～取消～ &lt;!channel&gt; https://evil.example");
  });
});
