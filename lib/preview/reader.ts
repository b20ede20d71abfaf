import * as z from "../core/zod";
import type { FreeeClient } from "../freee/client";
import type { FreeeRequest, FreeeResult } from "../freee/types";
import { getTool } from "../freee/tools/registry";
import { FreeeCompanyChangedError } from "../core/errors/taxonomy";

/**
 * The preview's reads from freee: the registry's read tools (the requests the MCP server would send for them),
 * through the workspace's FreeeClient — the same read path the agent's tools take. Each read is made once per
 * preview (cached by request), and their number is bounded so the preview Lambda's timeout can be derived
 * (infra/lambda-budgets.ts).
 * - freee answered and the record is there → `{ ok: true, value }`;
 * - freee refused it (403 / 404 / 4xx), its answer is not what its schema says, or the budget is used up →
 *   `{ ok: false, reason }`: the card says plainly that the value could not be read;
 * - AuthError and transient errors are thrown: Step Functions retries or catches them (the error table).
 */

export type PreviewClient = Pick<FreeeClient, "companyId" | "company" | "request">;
export type Read<T> = { ok: true; value: T } | { ok: false; reason: string };

/** At most this many freee requests per preview (each write step needs two or three, lookups are shared). */
export const MAX_PREVIEW_READS = 120;
/** Reads in flight at once (freee's per-company rate limits are per hour; this bounds the wall time). */
export const PREVIEW_READ_CONCURRENCY = 4;
/**
 * The preview's FreeeClient settings: no retries of its own (Step Functions' Retry rows for the preview state
 * are the policy, and show in the history), and a request timeout the Lambda budget counts.
 */
export const PREVIEW_CLIENT = { maxServerRetries: 0, maxRateLimitRetries: 0, requestTimeoutMs: 10_000 } as const;
/** Pages of the employee list read for one month when resolving a name. */
const MAX_EMPLOYEE_PAGES = 5;
const EMPLOYEE_PAGE = 100;

const EmployeeSchema = z.object({ id: z.int(), display_name: z.string(), num: z.nullish(z.string()), retire_date: z.nullish(z.string()) });
export type FreeeEmployee = z.infer<typeof EmployeeSchema>;
const PayRuleSchema = z.object({ pay_calc_type: z.string(), pay_amount: z.number() });
export type FreeePayRule = z.infer<typeof PayRuleSchema>;
const Range = z.object({ clock_in_at: z.string(), clock_out_at: z.string() });
const WorkRecordSchema = z.object({
  clock_in_at: z.nullish(z.string()),
  clock_out_at: z.nullish(z.string()),
  break_records: z.nullish(z.array(Range)),
  work_record_segments: z.nullish(z.array(Range)),
  note: z.nullish(z.string()),
});
export type FreeeWorkRecord = z.infer<typeof WorkRecordSchema>;
const NamedSchema = z.object({ id: z.int(), name: z.string() });
export type FreeeNamed = z.infer<typeof NamedSchema>;
const WalletableSchema = z.object({ id: z.int(), name: z.string(), type: z.string() });
export type FreeeWalletable = z.infer<typeof WalletableSchema>;
const TaxSchema = z.object({ code: z.int(), name: z.string(), name_ja: z.nullish(z.string()) });
export type FreeeTaxCode = z.infer<typeof TaxSchema>;

export class FreeeReader {
  reads = 0;
  private readonly cache = new Map<string, Promise<Read<unknown>>>();
  private inFlight = 0;
  private readonly queue: Array<() => void> = [];
  private company: Promise<number> | undefined;

  constructor(
    private readonly client: PreviewClient,
    private readonly maxReads = MAX_PREVIEW_READS,
  ) {}

  /** The connected company the reads are made in (read from the stored connection, not from freee's API). */
  async connectedCompany(): Promise<{ id: number; name?: string }> {
    const company = await this.client.company();
    // Every read of this preview names the same company, so the one recorded is the one read.
    this.company ??= Promise.resolve(company.id);
    if ((await this.company) !== company.id) throw new FreeeCompanyChangedError("the freee connection changed company during the preview", { details: { read: await this.company, now: company.id } });
    return company;
  }

  employee(id: number, year: number, month: number): Promise<Read<FreeeEmployee>> {
    return this.tool("freee_hr_get_employee", { year, month, employee_id: id }, z.object({ employee: EmployeeSchema }), (d) => d.employee);
  }

  /** Everyone employed in the month (paged; bounded). */
  async employees(year: number, month: number): Promise<Read<FreeeEmployee[]>> {
    const all: FreeeEmployee[] = [];
    for (let page = 0; page < MAX_EMPLOYEE_PAGES; page++) {
      const read = await this.tool(
        "freee_hr_list_employees",
        { year, month, limit: EMPLOYEE_PAGE, offset: page * EMPLOYEE_PAGE },
        z.object({ employees: z.array(EmployeeSchema), total_count: z.optional(z.int()) }),
        (d) => d,
      );
      if (!read.ok) return read;
      all.push(...read.value.employees);
      const total = read.value.total_count ?? all.length;
      if (read.value.employees.length < EMPLOYEE_PAGE || all.length >= total) return { ok: true, value: all };
    }
    return { ok: false, reason: `従業員が ${MAX_EMPLOYEE_PAGES * EMPLOYEE_PAGE} 名を超えるため一覧を読み切れませんでした` };
  }

  /** The rule in force for the month; `null` when the employee has none. */
  basicPayRule(id: number, year: number, month: number): Promise<Read<FreeePayRule | null>> {
    return this.tool("freee_hr_get_basic_pay_rule", { year, month, employee_id: id }, z.object({ employee_basic_pay_rule: z.nullable(PayRuleSchema) }), (d) => d.employee_basic_pay_rule);
  }

  workRecord(id: number, date: string): Promise<Read<FreeeWorkRecord>> {
    return this.tool("freee_hr_get_work_record", { employee_id: id, date }, WorkRecordSchema, (d) => d);
  }

  accountItems(): Promise<Read<FreeeNamed[]>> {
    return this.tool("freee_accounting_list_account_items", {}, z.object({ account_items: z.array(NamedSchema) }), (d) => d.account_items);
  }

  /** Partners whose name or code contains `keyword` (all of them without one; freee answers up to 3,000). */
  partners(keyword?: string): Promise<Read<FreeeNamed[]>> {
    const input = keyword === undefined ? { limit: 3000 } : { keyword, limit: 3000 };
    return this.tool("freee_accounting_list_partners", input, z.object({ partners: z.array(NamedSchema) }), (d) => d.partners);
  }

  /** A record as the generic GET reads it: the current resource of a PUT or DELETE. */
  resource(path: string): Promise<Read<Record<string, unknown>>> {
    return this.tool("freee_api_get", { path }, z.record(z.string(), z.unknown()), (d) => d);
  }

  /** A list of named records (walletables, sections, tags, items) by its GET path and the array its answer holds. */
  namedList(path: string, key: string): Promise<Read<FreeeNamed[]>> {
    return this.tool("freee_api_get", { path }, z.object({ [key]: z.array(NamedSchema) }), (d) => d[key] as FreeeNamed[]);
  }

  /** The company's bank accounts, cards and cash wallets, with their type: a payment names its wallet by type and id. */
  walletables(): Promise<Read<FreeeWalletable[]>> {
    return this.tool("freee_api_get", { path: "/api/1/walletables" }, z.object({ walletables: z.array(WalletableSchema) }), (d) => d.walletables);
  }

  /**
   * The company's tax codes, as the generic GET reads them: `/api/1/taxes/companies/{company_id}` with the connected
   * company put in the path (freee marks `/api/1/taxes/codes` 廃止予定 in its favour).
   */
  taxCodes(): Promise<Read<FreeeTaxCode[]>> {
    return this.tool("freee_api_get", { path: "/api/1/taxes/companies/{company_id}" }, z.object({ taxes: z.array(TaxSchema) }), (d) => d.taxes);
  }

  private async tool<S extends z.ZodMiniType, T>(name: string, input: Record<string, unknown>, schema: S, pick: (data: z.infer<S>) => T): Promise<Read<T>> {
    const tool = getTool(name);
    if (tool === undefined) throw new Error(`preview: registry has no ${name}`);
    this.company ??= this.client.companyId();
    const request = tool.toRequest(input as never, await this.company);
    return this.read(request, schema, pick);
  }

  private read<S extends z.ZodMiniType, T>(request: FreeeRequest, schema: S, pick: (data: z.infer<S>) => T): Promise<Read<T>> {
    const key = JSON.stringify([request.method, request.path, request.query ?? {}]);
    let cached = this.cache.get(key) as Promise<Read<T>> | undefined;
    if (cached === undefined) {
      cached = this.fetch(request, schema, pick);
      this.cache.set(key, cached);
      // A thrown read (auth, transient) must not stay cached as a rejected promise for a later caller.
      cached.catch(() => this.cache.delete(key));
    }
    return cached;
  }

  private async fetch<S extends z.ZodMiniType, T>(request: FreeeRequest, schema: S, pick: (data: z.infer<S>) => T): Promise<Read<T>> {
    if (this.reads >= this.maxReads) return { ok: false, reason: `読み取り上限（${this.maxReads} 件）に達したため読み取っていません` };
    this.reads += 1;
    const result = await this.limited(() => this.client.request(request));
    if (!result.ok) return { ok: false, reason: refusalReason(result) };
    const parsed = schema.safeParse(result.data);
    if (!parsed.success) return { ok: false, reason: "freee の応答が想定した形ではありませんでした" };
    return { ok: true, value: pick(parsed.data) };
  }

  private async limited<T>(run: () => Promise<T>): Promise<T> {
    // A finished read hands its slot straight to the next waiter, so no more than the limit ever run.
    if (this.inFlight >= PREVIEW_READ_CONCURRENCY) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.inFlight += 1;
    try {
      return await run();
    } finally {
      const next = this.queue.shift();
      if (next === undefined) this.inFlight -= 1;
      else next();
    }
  }
}

function refusalReason(result: Extract<FreeeResult, { ok: false }>): string {
  const said = result.messages.length === 0 ? "" : `: ${result.messages.slice(0, 2).join(" / ")}`;
  switch (result.kind) {
    case "forbidden":
      return `freee が権限不足のため読み取りを拒否しました (403)${said}`;
    case "not_found":
      return `freee に見つかりません (404)${said}`;
    case "rejected":
      return `freee が読み取りを受け付けませんでした (${result.status})${said}`;
  }
}
