import type { FakeFreee } from "../fakes/freee/fake-freee";
import type { ProxiedRequest } from "./fault-proxy";

/**
 * The requests a chaos cell can post, each with the one freee write its plan makes: the pay rule (the matrix's own
 * request), and the five that only the generic tools reach (dev/fakes/anthropic/scripted-breadth.ts). For each, the
 * invariants know which requests are its write (none may reach freee twice) and what freee shows once it took
 * effect (a completed run must have changed freee).
 */
export type Flow = "pay_rule" | "expense_application" | "manual_journal" | "transfer" | "workload" | "sales_order";

export interface FlowSpec {
  text: string;
  /** The label a cell's name carries (none for the pay rule). */
  label?: string;
  /** The requests of its write, at the proxy (the MCP server's calls) and in the fake's log alike. */
  isWrite(r: Pick<ProxiedRequest, "method" | "path">): boolean;
  /** undefined when freee shows the write; else what it shows instead. */
  notWritten(freee: FakeFreee): string | undefined;
}

/** What the pay rule request asks freee to become (the scripted model's L3 plan writes exactly this). */
export const EXPECTED_PAY = 300_000;

const post = (path: string) => (r: Pick<ProxiedRequest, "method" | "path">) => r.method === "POST" && r.path.split("?")[0] === path;
const records = (freee: FakeFreee, path: string) => freee.companies[0]?.records.get(path) ?? [];

export const FLOWS: Record<Flow, FlowSpec> = {
  pay_rule: {
    text: "来月から山田さんの基本給を30万円に変更して",
    isWrite: (r) => r.method === "PUT" && /^\/hr\/api\/v1\/employees\/\d+\/basic_pay_rule/.test(r.path),
    notWritten: (freee) => {
      const pay = freee.companies[0]?.employees.find((e) => e.id === 1)?.payRules.at(-1)?.pay_amount;
      return pay === EXPECTED_PAY ? undefined : `pay ${pay} (not ${EXPECTED_PAY})`;
    },
  },
  expense_application: {
    text: "大阪出張の新幹線代 13,500円を経費申請して",
    label: "経費申請",
    isWrite: post("/api/1/expense_applications"),
    notWritten: (freee) => (records(freee, "/api/1/expense_applications").some((r) => r.title === "出張交通費の経費申請") ? undefined : "no expense application"),
  },
  manual_journal: {
    text: "旅費交通費に入れた12,000円を消耗品費へ振替伝票で振り替えて",
    label: "振替伝票",
    isWrite: post("/api/1/manual_journals"),
    notWritten: (freee) => ((freee.companies[0]?.manualJournals.length ?? 0) > 0 ? undefined : "no manual journal"),
  },
  transfer: {
    text: "みずほ銀行から現金へ5万円の引き出しを口座振替として登録して",
    label: "取引（振替）",
    isWrite: post("/api/1/transfers"),
    notWritten: (freee) => (records(freee, "/api/1/transfers").some((r) => r.amount === 50_000) ? undefined : "no transfer of 50,000"),
  },
  workload: {
    text: "今日の要件定義の打ち合わせ2時間半を工数に登録して",
    label: "工数",
    isWrite: post("/pm/workloads"),
    notWritten: (freee) => (records(freee, "/pm/workloads").some((r) => r.minutes === 150) ? undefined : "no workload of 150 minutes"),
  },
  sales_order: {
    text: "保守サポート年間20万円の受注を登録して",
    label: "受注",
    isWrite: post("/sm/sales_orders"),
    notWritten: (freee) => (records(freee, "/sm/sales_orders").some((r) => r.sales_order_subject === "保守サポート（年間）") ? undefined : "no sales order"),
  },
};

/** The five flows the generic tools make, in the matrix's order. */
export const GENERIC_FLOWS: readonly Flow[] = ["expense_application", "manual_journal", "transfer", "workload", "sales_order"];
