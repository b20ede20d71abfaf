import { notFoundBody } from "./errors";
import { checkDealRefs, employeeOr404, invalid, page, walletableExists, type Route, type RouteContext, type RouteResult } from "./routes";
import { dealRecord, nextId, TAX_CODES } from "./state";

/** The file each uploaded receipt was made from (name, type, size, bytes' digest), for the tests' assertions. */
export const RECEIPT_FILES = new WeakMap<object, { name: string; type: string; size: number; sha256: string }>();

/**
 * The operations added to the vendored selection: deal update / delete / payments, manual journals (振替伝票),
 * tags, sections, items, the file box, an account item, a partner, the monthly attendance summary, invoice update
 * and templates. As in routes.ts, the request has passed freee's schema; handlers check what it cannot (ids exist).
 */

const UPDATE_DATE = "2026-01-05";

const TAX_CATEGORY: Record<number, string> = { 21: "tax_10", 136: "tax_10", 137: "tax_r8" };

function byId(list: Record<string, unknown>[], id: string | undefined): Record<string, unknown> | undefined {
  return list.find((r) => r.id === Number(id));
}

function missing(ctx: RouteContext, what: string): RouteResult {
  return [404, notFoundBody(ctx.api, `${what}が見つかりません。`)];
}

/** A journal line as freee answers it: names beside the ids, nulls where nothing was given. */
function journalLine(ctx: RouteContext, d: Record<string, any>): Record<string, unknown> {
  const partner = d.partner_id === undefined ? undefined : ctx.company.partners.find((p) => p.id === d.partner_id);
  const section = d.section_id === undefined ? undefined : ctx.company.sections.find((s) => s.id === d.section_id);
  const item = d.item_id === undefined ? undefined : ctx.company.items.find((s) => s.id === d.item_id);
  const tagIds = (d.tag_ids ?? []) as number[];
  return {
    id: nextId(),
    entry_side: d.entry_side,
    account_item_id: d.account_item_id,
    tax_code: d.tax_code,
    partner_id: partner?.id ?? null,
    partner_name: (partner?.name as string | undefined) ?? null,
    partner_long_name: null,
    item_id: item?.id ?? null,
    item_name: (item?.name as string | undefined) ?? null,
    section_id: section?.id ?? null,
    section_name: (section?.name as string | undefined) ?? null,
    tag_ids: tagIds,
    tag_names: tagIds.map((id) => String(ctx.company.tags.find((t) => t.id === id)?.name ?? "")),
    amount: d.amount,
    vat: d.vat ?? Math.floor((Number(d.amount) * 10) / 110),
    description: d.description ?? "",
  };
}

function journalRefs(ctx: RouteContext): string[] {
  const problems: string[] = [];
  const lines = ctx.body.details as Record<string, any>[];
  for (const d of lines) {
    if (d.account_item_id === undefined) problems.push("勘定科目を指定してください。");
    else if (!ctx.company.accountItems.some((a) => a.id === d.account_item_id)) problems.push(`勘定科目 ${d.account_item_id} が存在しません。`);
    if (!TAX_CODES.some((t) => t.code === d.tax_code)) problems.push(`税区分 ${d.tax_code} が存在しません。`);
  }
  const side = (s: string) => lines.filter((d) => d.entry_side === s).reduce((sum, d) => sum + Number(d.amount), 0);
  if (side("debit") !== side("credit")) problems.push("貸借の合計金額が一致しません。");
  return problems;
}

export const MORE_ROUTES: Record<string, Route> = {
  update_deal: (ctx) => {
    const deal = byId(ctx.company.deals, ctx.pathParams.id);
    if (deal === undefined) return missing(ctx, "取引");
    const problems = checkDealRefs(ctx);
    if (problems.length > 0) return invalid(ctx, ...problems);
    const { company_id: _c, ...fields } = ctx.body;
    const updated = dealRecord(ctx.company, { ...deal, ...fields, id: deal.id as number, payments: [] } as never);
    Object.assign(deal, { ...updated, payments: deal.payments, status: deal.status });
    return [200, { deal }];
  },
  destroy_deal: (ctx) => {
    const at = ctx.company.deals.findIndex((d) => d.id === Number(ctx.pathParams.id));
    if (at < 0) return missing(ctx, "取引");
    ctx.company.deals.splice(at, 1);
    return [204, null];
  },
  create_deal_payment: (ctx) => {
    const deal = byId(ctx.company.deals, ctx.pathParams.id);
    if (deal === undefined) return missing(ctx, "取引");
    if (!walletableExists(ctx.company, String(ctx.body.from_walletable_type), Number(ctx.body.from_walletable_id))) return invalid(ctx, "口座が存在しません。");
    const payments = [...(deal.payments as Record<string, unknown>[]), { id: nextId(), date: ctx.body.date, from_walletable_type: ctx.body.from_walletable_type, from_walletable_id: ctx.body.from_walletable_id, amount: ctx.body.amount }];
    const due = Number(deal.amount) - payments.reduce((s, p) => s + Number(p.amount), 0);
    Object.assign(deal, { payments, due_amount: due, status: due <= 0 ? "settled" : "unsettled" });
    return [201, { deal }];
  },
  get_manual_journals: (ctx) => {
    const q = ctx.query;
    const list = ctx.company.manualJournals.filter(
      (j) =>
        (q.get("start_issue_date") === null || String(j.issue_date) >= (q.get("start_issue_date") as string)) &&
        (q.get("end_issue_date") === null || String(j.issue_date) <= (q.get("end_issue_date") as string)) &&
        (q.get("ref_number") === null || j.ref_number === q.get("ref_number")),
    );
    return [200, { manual_journals: page(list, q, 20) }];
  },
  create_manual_journal: (ctx) => {
    const problems = journalRefs(ctx);
    if (problems.length > 0) return invalid(ctx, ...problems);
    const b = ctx.body;
    const journal = {
      id: nextId(),
      company_id: ctx.company.id,
      issue_date: b.issue_date,
      adjustment: b.adjustment === true,
      txn_number: null,
      ref_number: (b.ref_number as string | undefined) ?? null,
      details: (b.details as Record<string, unknown>[]).map((d) => journalLine(ctx, d)),
      receipt_ids: (b.receipt_ids as number[] | undefined) ?? [],
    };
    ctx.company.manualJournals.push(journal);
    return [201, { manual_journal: journal }];
  },
  get_manual_journal: (ctx) => {
    const journal = byId(ctx.company.manualJournals, ctx.pathParams.id);
    return journal === undefined ? missing(ctx, "振替伝票") : [200, { manual_journal: journal }];
  },
  destroy_manual_journal: (ctx) => {
    const at = ctx.company.manualJournals.findIndex((j) => j.id === Number(ctx.pathParams.id));
    if (at < 0) return missing(ctx, "振替伝票");
    ctx.company.manualJournals.splice(at, 1);
    return [204, null];
  },
  get_account_item: (ctx) => {
    const item = byId(ctx.company.accountItems, ctx.pathParams.id);
    if (item === undefined) return missing(ctx, "勘定科目");
    return [200, { account_item: { ...item, searchable: 2, accumulated_dep_account_item_id: null, accumulated_dep_account_item_name: "", items: [], partners: [] } }];
  },
  get_partner: (ctx) => {
    const partner = byId(ctx.company.partners, ctx.pathParams.id);
    return partner === undefined ? missing(ctx, "取引先") : [200, { partner }];
  },
  update_partner: (ctx) => {
    const partner = byId(ctx.company.partners, ctx.pathParams.id);
    if (partner === undefined) return missing(ctx, "取引先");
    const { company_id: _c, name, code, long_name, name_kana, shortcut1, shortcut2 } = ctx.body;
    if (name !== undefined && ctx.company.partners.some((p) => p !== partner && p.name === name)) return invalid(ctx, "同じ名前の取引先が既に存在します。");
    const given = Object.fromEntries(Object.entries({ name, code, long_name, name_kana, shortcut1, shortcut2 }).filter(([, v]) => v !== undefined));
    Object.assign(partner, given, { update_date: UPDATE_DATE });
    return [200, { partner }];
  },
  get_tags: (ctx) => [200, { tags: page(ctx.company.tags, ctx.query, 50) }],
  create_tag: (ctx) => {
    if (ctx.company.tags.some((t) => t.name === ctx.body.name)) return invalid(ctx, "同じ名前のメモタグが既に存在します。");
    const tag = { id: nextId(), company_id: ctx.company.id, name: ctx.body.name, update_date: UPDATE_DATE, shortcut1: ctx.body.shortcut1 ?? null, shortcut2: ctx.body.shortcut2 ?? null };
    ctx.company.tags.push(tag);
    return [201, { tag }];
  },
  get_sections: (ctx) => [200, { sections: ctx.company.sections }],
  get_items: (ctx) => [200, { items: page(ctx.company.items, ctx.query, 50) }],
  get_receipts: (ctx) => {
    const q = ctx.query;
    const list = ctx.company.receipts.filter((r) => String(r.created_at).slice(0, 10) >= (q.get("start_date") ?? "") && String(r.created_at).slice(0, 10) <= (q.get("end_date") ?? "9999"));
    return [200, { receipts: page(list, q, 50) }];
  },
  // freee keeps the file; the fake keeps what a test checks of it (RECEIPT_FILES).
  create_receipt: (ctx) => {
    const file = ctx.files.receipt;
    if (file === undefined) return invalid(ctx, "receipt にファイルを指定してください。");
    if (file.size === 0) return invalid(ctx, "ファイルが空です。");
    const b = ctx.body;
    const metadatum = { partner_name: b.receipt_metadatum_partner_name ?? null, issue_date: b.receipt_metadatum_issue_date ?? null, amount: b.receipt_metadatum_amount ?? null };
    const receipt = {
      id: nextId(),
      status: "confirmed",
      ...(b.description === undefined ? {} : { description: b.description }),
      mime_type: file.type,
      origin: "public_api",
      created_at: new Date().toISOString(),
      user: { id: ctx.userId, email: `user${ctx.userId}@example.invalid`, display_name: null },
      receipt_metadatum: metadatum,
      qualified_invoice: b.qualified_invoice ?? "unselected",
      ...(b.document_type === undefined ? {} : { document_type: b.document_type }),
    };
    ctx.company.receipts.push(receipt);
    RECEIPT_FILES.set(receipt, file);
    return [201, { receipt }];
  },
  get_receipt: (ctx) => {
    const receipt = byId(ctx.company.receipts, ctx.pathParams.id);
    return receipt === undefined ? missing(ctx, "ファイル") : [200, { receipt }];
  },
  get_employee_work_record_summary: (ctx) => {
    const e = employeeOr404(ctx, ctx.pathParams.employee_id);
    if (Array.isArray(e)) return e;
    const prefix = `${e.id}|${ctx.pathParams.year}-${String(ctx.pathParams.month).padStart(2, "0")}-`;
    const days = [...ctx.company.workRecords.entries()].filter(([k, r]) => k.startsWith(prefix) && r.work_record_segments.length > 0);
    const mins = days.reduce((sum, [, r]) => sum + r.work_record_segments.reduce((s, seg) => s + (Date.parse(seg.clock_out_at) - Date.parse(seg.clock_in_at)) / 60_000, 0), 0);
    const month = `${ctx.pathParams.year}-${String(ctx.pathParams.month).padStart(2, "0")}`;
    const last = new Date(Date.UTC(Number(ctx.pathParams.year), Number(ctx.pathParams.month), 0)).getUTCDate();
    return [200, { year: Number(ctx.pathParams.year), month: Number(ctx.pathParams.month), start_date: `${month}-01`, end_date: `${month}-${last}`, work_days: days.length, total_work_mins: mins }];
  },
  "invoices/update": (ctx) => {
    const invoice = byId(ctx.company.invoices, ctx.pathParams.id);
    if (invoice === undefined) return missing(ctx, "請求書");
    const { company_id: _c, lines: _l, partner_id: _p, ...fields } = ctx.body;
    Object.assign(invoice, fields);
    return [200, { invoice }];
  },
  // The company's tax codes (freee: the successor of /api/1/taxes/codes), each with its display category; like
  // get_tax_codes, without 対象外 (code 0), whose category the schema's enum has no value for.
  get_taxes_companies: () => [200, { taxes: TAX_CODES.filter((t) => t.code > 0).map((t) => ({ ...t, display_category: TAX_CATEGORY[t.code] as string, available: true })) }],
  "invoices/templates/index": () => [200, { templates: [{ id: 71, name: "標準テンプレート" }] }],
};
