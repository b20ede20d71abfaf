import { badRequestBody, notFoundBody } from "./errors";
import { dealRecord, monthIndex, nextId, partnerRecord, payRuleAt, TAX_CODES, type CompanyData, type Employee, type WorkRecord } from "./state";
import type { FreeeApi, FreeeOperation } from "../../../lib/freee/openapi/validator";

/**
 * What each vendored operation does to the fake's data. The request has already passed freee's schema (the
 * validator), so handlers check only what the schema cannot say: that the ids it names exist in the company.
 */

export interface RouteContext {
  api: FreeeApi;
  operation: FreeeOperation;
  company: CompanyData;
  /** All companies the token's user belongs to (users/me lists them). */
  companies: CompanyData[];
  userId: number;
  query: URLSearchParams;
  pathParams: Record<string, string>;
  body: Record<string, any>;
  /** The files of a multipart/form-data request, by form field (the file box). */
  files: Record<string, { name: string; type: string; size: number; sha256: string }>;
  /** Base URL of the fake, for the links freee gives (an invoice's report_url). */
  baseUrl: string;
}

export type RouteResult = [status: number, body: unknown];
export type Route = (ctx: RouteContext) => RouteResult;

export const num = (q: URLSearchParams, key: string): number | undefined => (q.get(key) === null ? undefined : Number(q.get(key)));

export function page<T>(items: T[], q: URLSearchParams, defaultLimit: number): T[] {
  const offset = num(q, "offset") ?? 0;
  return items.slice(offset, offset + (num(q, "limit") ?? defaultLimit));
}

export function employeeOr404(ctx: RouteContext, id: string | undefined): Employee | RouteResult {
  const employee = ctx.company.employees.find((e) => e.id === Number(id));
  return employee ?? [404, notFoundBody(ctx.api, "従業員が見つかりません。")];
}

function employeeView(ctx: RouteContext, e: Employee, year: number, month: number): Record<string, unknown> {
  const rule = payRuleAt(e, year, month);
  return {
    id: e.id,
    company_id: ctx.company.id,
    num: e.num,
    display_name: e.display_name,
    entry_date: e.entry_date,
    retire_date: e.retire_date,
    ...(e.birth_date === undefined ? {} : { birth_date: e.birth_date }),
    user_id: null,
    payroll_calculation: true,
    ...(rule === undefined ? {} : { basic_pay_rule: { company_id: ctx.company.id, employee_id: e.id, pay_calc_type: rule.pay_calc_type, pay_amount: rule.pay_amount } }),
  };
}

/** Employed in the month: entered by its end and not retired before its start. */
function employedIn(e: Employee, year: number, month: number): boolean {
  const at = monthIndex(year, month);
  const entry = monthIndex(Number(e.entry_date.slice(0, 4)), Number(e.entry_date.slice(5, 7)));
  const retired = e.retire_date === null ? Infinity : monthIndex(Number(e.retire_date.slice(0, 4)), Number(e.retire_date.slice(5, 7)));
  return entry <= at && at <= retired;
}

/** HR answers times in ISO 8601 with the JST offset; requests send `YYYY-MM-DD HH:MM(:SS)`. */
function isoJst(freeeTime: string): string {
  const [date, time] = freeeTime.split(" ") as [string, string];
  return `${date}T${time.length === 5 ? `${time}:00` : time}.000+09:00`;
}

function workRecordView(record: WorkRecord): Record<string, unknown> {
  return {
    ...record,
    date: `${record.date}T00:00:00.000+09:00`,
    is_editable: true,
    lateness_mins: 0,
    early_leaving_mins: 0,
    normal_work_mins: 480,
    use_default_work_pattern: true,
    use_attendance_deduction: true,
    paid_holidays: [],
  };
}

function emptyWorkRecord(date: string): WorkRecord {
  return { date, break_records: [], work_record_segments: [], clock_in_at: null, clock_out_at: null, day_pattern: "normal_day", is_absence: false, note: "" };
}

export function invalid(ctx: RouteContext, ...messages: string[]): RouteResult {
  return [400, badRequestBody(ctx.api, messages)];
}

export function checkDealRefs(ctx: RouteContext): string[] {
  const b = ctx.body;
  const problems: string[] = [];
  if (b.partner_id !== undefined && !ctx.company.partners.some((p) => p.id === b.partner_id)) problems.push("取引先が存在しません。");
  for (const d of b.details as { account_item_id?: number; tax_code: number }[]) {
    if (d.account_item_id === undefined) problems.push("勘定科目を指定してください。");
    else if (!ctx.company.accountItems.some((a) => a.id === d.account_item_id)) problems.push(`勘定科目 ${d.account_item_id} が存在しません。`);
    if (!TAX_CODES.some((t) => t.code === d.tax_code)) problems.push(`税区分 ${d.tax_code} が存在しません。`);
  }
  for (const p of (b.payments ?? []) as { from_walletable_id: number; from_walletable_type: string }[]) {
    if (!walletableExists(ctx.company, p.from_walletable_type, p.from_walletable_id)) problems.push("口座が存在しません。");
  }
  return problems;
}

export const ROUTES: Record<string, Route> = {
  // ------------------------------------------------------------ accounting
  get_companies: (ctx) => [
    200,
    { companies: ctx.companies.map((c) => ({ id: c.id, name: c.name, name_kana: null, display_name: c.name, company_number: String(c.id).padStart(10, "0"), role: c.role })) },
  ],
  get_users_me: (ctx) => {
    if (ctx.api === "hr") {
      return [200, { id: ctx.userId, companies: ctx.companies.map((c) => ({ id: c.id, name: c.name, role: "company_admin", external_cid: String(c.id), employee_id: null, display_name: "管理者" })) }];
    }
    return [
      200,
      {
        user: {
          id: ctx.userId,
          email: "owner@example.invalid",
          display_name: "管理者",
          first_name: null,
          last_name: null,
          first_name_kana: null,
          last_name_kana: null,
          ...(ctx.query.get("companies") === "true" ? { companies: ctx.companies.map((c) => ({ id: c.id, display_name: c.name, role: c.role, use_custom_role: false })) } : {}),
        },
      },
    ];
  },
  get_deals: (ctx) => {
    const q = ctx.query;
    const list = ctx.company.deals.filter(
      (d) =>
        (q.get("type") === null || d.type === q.get("type")) &&
        (q.get("partner_id") === null || d.partner_id === num(q, "partner_id")) &&
        (q.get("status") === null || d.status === q.get("status")) &&
        (q.get("start_issue_date") === null || String(d.issue_date) >= (q.get("start_issue_date") as string)) &&
        (q.get("end_issue_date") === null || String(d.issue_date) <= (q.get("end_issue_date") as string)) &&
        (q.get("account_item_id") === null || (d.details as { account_item_id: number }[]).some((x) => x.account_item_id === num(q, "account_item_id"))),
    );
    return [200, { deals: page(list, q, 20), meta: { total_count: list.length } }];
  },
  get_deal: (ctx) => {
    const deal = ctx.company.deals.find((d) => d.id === Number(ctx.pathParams.id));
    return deal === undefined ? [404, notFoundBody("accounting", "取引が見つかりません。")] : [200, { deal }];
  },
  create_deal: (ctx) => {
    const problems = checkDealRefs(ctx);
    if (problems.length > 0) return invalid(ctx, ...problems);
    const deal = dealRecord(ctx.company, ctx.body as Parameters<typeof dealRecord>[1]);
    ctx.company.deals.push(deal);
    return [201, { deal }];
  },
  get_account_items: (ctx) => [200, { account_items: ctx.company.accountItems.map(({ company_id: _c, ...item }) => item) }],
  get_partners: (ctx) => {
    const keyword = ctx.query.get("keyword");
    const list = ctx.company.partners.filter((p) => keyword === null || String(p.name).includes(keyword) || String(p.code ?? "").includes(keyword));
    return [200, { partners: page(list, ctx.query, 3000) }];
  },
  create_partner: (ctx) => {
    if (ctx.company.partners.some((p) => p.name === ctx.body.name)) return invalid(ctx, "同じ名前の取引先が既に存在します。");
    const partner = partnerRecord(ctx.company.id, nextId(), ctx.body.name as string, (ctx.body.code as string | undefined) ?? null);
    ctx.company.partners.push(partner);
    return [201, { partner }];
  },
  get_walletables: (ctx) => {
    const type = ctx.query.get("type");
    return [200, { walletables: ctx.company.walletables.filter((w) => type === null || w.type === type) }];
  },
  get_tax_codes: () => [200, { taxes: TAX_CODES.filter((t) => t.code > 0) }],

  // ------------------------------------------------------------ HR
  get_employees: (ctx) => {
    const year = num(ctx.query, "year") as number;
    const month = num(ctx.query, "month") as number;
    const list = ctx.company.employees.filter((e) => employedIn(e, year, month));
    return [200, { employees: page(list, ctx.query, 50).map((e) => employeeView(ctx, e, year, month)), total_count: list.length }];
  },
  get_employee: (ctx) => {
    const e = employeeOr404(ctx, ctx.pathParams.id);
    return Array.isArray(e) ? e : [200, { employee: employeeView(ctx, e, num(ctx.query, "year") as number, num(ctx.query, "month") as number) }];
  },
  get_employee_basic_pay_rule: (ctx) => {
    const e = employeeOr404(ctx, ctx.pathParams.employee_id);
    if (Array.isArray(e)) return e;
    const rule = payRuleAt(e, num(ctx.query, "year") as number, num(ctx.query, "month") as number);
    return [
      200,
      { employee_basic_pay_rule: rule === undefined ? null : { company_id: ctx.company.id, employee_id: e.id, pay_calc_type: rule.pay_calc_type, pay_amount: rule.pay_amount } },
    ];
  },
  update_employee_basic_pay_rule: (ctx) => {
    const e = employeeOr404(ctx, ctx.pathParams.employee_id);
    if (Array.isArray(e)) return e;
    const { year, month, employee_basic_pay_rule: rule } = ctx.body as { year: number; month: number; employee_basic_pay_rule: { pay_calc_type: Employee["payRules"][0]["pay_calc_type"]; pay_amount: number } };
    const from = monthIndex(year, month);
    // A rule set again for the same month replaces that month's version; later versions stay.
    e.payRules = [...e.payRules.filter((r) => r.from !== from), { from, ...rule }].sort((a, b) => a.from - b.from);
    return [200, { employee_basic_pay_rule: { company_id: ctx.company.id, employee_id: e.id, ...rule } }];
  },
  get_employee_work_record: (ctx) => {
    const e = employeeOr404(ctx, ctx.pathParams.employee_id);
    if (Array.isArray(e)) return e;
    const date = ctx.pathParams.date as string;
    return [200, workRecordView(ctx.company.workRecords.get(`${e.id}|${date}`) ?? emptyWorkRecord(date))];
  },
  update_employee_work_record: (ctx) => {
    const e = employeeOr404(ctx, ctx.pathParams.employee_id);
    if (Array.isArray(e)) return e;
    const date = ctx.pathParams.date as string;
    const b = ctx.body;
    const range = (r: { clock_in_at: string; clock_out_at: string }) => ({ clock_in_at: isoJst(r.clock_in_at), clock_out_at: isoJst(r.clock_out_at) });
    const segments = (b.work_record_segments as { clock_in_at: string; clock_out_at: string }[] | undefined) ?? (b.clock_in_at !== undefined && b.clock_out_at !== undefined ? [{ clock_in_at: b.clock_in_at, clock_out_at: b.clock_out_at }] : []);
    for (const s of segments) if (s.clock_in_at >= s.clock_out_at) return invalid(ctx, "退勤時刻は出勤時刻より後にしてください。");
    const record: WorkRecord = {
      ...emptyWorkRecord(date),
      work_record_segments: segments.map(range),
      break_records: ((b.break_records as { clock_in_at: string; clock_out_at: string }[] | undefined) ?? []).map(range),
      clock_in_at: segments[0] === undefined ? null : isoJst(segments[0].clock_in_at),
      clock_out_at: segments.at(-1) === undefined ? null : isoJst((segments.at(-1) as { clock_out_at: string }).clock_out_at),
      day_pattern: (b.day_pattern as WorkRecord["day_pattern"] | undefined) ?? "normal_day",
      is_absence: b.is_absence === true,
      note: (b.note as string | undefined) ?? "",
    };
    ctx.company.workRecords.set(`${e.id}|${date}`, record);
    return [200, workRecordView(record)];
  },

  // ------------------------------------------------------------ invoice
  "invoices/index": (ctx) => {
    const q = ctx.query;
    const partnerIds = q.get("partner_ids")?.split(",").map(Number);
    const list = ctx.company.invoices.filter(
      (i) =>
        (partnerIds === undefined || partnerIds.includes(i.partner_id as number)) &&
        (q.get("payment_status") === null || i.payment_status === q.get("payment_status")) &&
        (q.get("start_billing_date") === null || String(i.billing_date) >= (q.get("start_billing_date") as string)) &&
        (q.get("end_billing_date") === null || String(i.billing_date) <= (q.get("end_billing_date") as string)) &&
        (q.get("subject") === null || String(i.subject).includes(q.get("subject") as string)),
    );
    return [200, { invoices: page(list, q, 20).map(({ lines: _l, invoice_note: _n, created_at: _c, ...rest }) => rest), meta: { total_count: list.length } }];
  },
  "invoices/show": (ctx) => {
    const invoice = ctx.company.invoices.find((i) => i.id === Number(ctx.pathParams.id));
    return invoice === undefined ? [404, notFoundBody("invoice", "請求書が見つかりません。")] : [200, { invoice }];
  },
  "invoices/create": (ctx) => {
    const b = ctx.body;
    const partner = ctx.company.partners.find((p) => p.id === b.partner_id || (b.partner_code !== undefined && p.code === b.partner_code));
    if (partner === undefined) return invalid(ctx, "取引先を指定してください。");
    const lines = (b.lines as Record<string, any>[]).map((l) => {
      const excluding = l.type === "text" ? 0 : Math.round(Number(l.quantity ?? 1) * Number(l.unit_price ?? 0));
      // Optional fields the request left out stay out of the answer (the schema has them non-nullable).
      const given = Object.fromEntries(["sales_date", "unit", "quantity", "unit_price"].filter((k) => l[k] !== undefined).map((k) => [k, l[k]]));
      return { id: nextId(), type: l.type ?? "item", description: l.description ?? "", ...given, tax_rate: l.tax_rate ?? 10, reduced_tax_rate: l.reduced_tax_rate ?? false, withholding: l.withholding ?? false, amount_excluding_tax: excluding };
    });
    const excluding = lines.reduce((s, l) => s + l.amount_excluding_tax, 0);
    const tax = lines.reduce((s, l) => s + Math.floor((l.amount_excluding_tax * Number(l.tax_rate)) / 100), 0);
    const id = nextId();
    const invoice = {
      id,
      company_id: ctx.company.id,
      invoice_number: (b.invoice_number as string | undefined) ?? `INV-${id}`,
      subject: (b.subject as string | undefined) ?? "",
      billing_date: b.billing_date,
      issue_date: b.issue_date ?? null,
      payment_date: b.payment_date ?? null,
      payment_type: b.payment_type ?? "transfer",
      invoice_note: (b.invoice_note as string | undefined) ?? "",
      memo: (b.memo as string | undefined) ?? "",
      sending_status: "unsent",
      payment_status: "unsettled",
      cancel_status: "uncanceled",
      deal_status: "unregistered",
      deal_id: null,
      tax_entry_method: b.tax_entry_method,
      tax_fraction: b.tax_fraction,
      withholding_tax_entry_method: b.withholding_tax_entry_method,
      total_amount: excluding + tax,
      created_at: "2026-01-05 10:00:00",
      amount_including_tax: excluding + tax,
      amount_excluding_tax: excluding,
      amount_tax: tax,
      amount_brought_forward: null,
      partner_id: partner.id,
      partner_code: partner.code,
      partner_name: partner.name,
      partner_display_name: `${String(partner.name)} ${String(b.partner_title)}`,
      lines,
      report_url: `${ctx.baseUrl}/iv/reports/invoices/${id}`,
    };
    ctx.company.invoices.push(invoice);
    return [201, { invoice }];
  },
};

/**
 * A payment's wallet as freee finds it: by type and id — a bank account, card or cash wallet of that type, or for
 * `private_account_item` an account item (プライベート資金), whose ids are another list.
 */
export function walletableExists(company: { walletables: Record<string, unknown>[]; accountItems: Record<string, unknown>[] }, type: string, id: number): boolean {
  if (type === "private_account_item") return company.accountItems.some((a) => a.id === id);
  return company.walletables.some((w) => w.id === id && w.type === type);
}
