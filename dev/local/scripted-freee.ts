import { randomBytes } from "node:crypto";

/**
 * The sandbox's freee: one company with employees, pay rules, work records, deals, partners and account items,
 * behind the same paths as the real API and token endpoint (`FREEE_API_BASE_URL = FREEE_OAUTH_BASE_URL = <base>`).
 * Writes change its state, so a run that raises a salary shows the new amount on the next read.
 * Tokens are its own (issued to the seeded connection, refreshable once each, as freee's are).
 */
export const SANDBOX_COMPANY = { id: 1001, name: "サンドボックス株式会社" } as const;

interface Employee {
  id: number;
  num: string;
  display_name: string;
  pay: { pay_calc_type: "monthly" | "daily" | "hourly"; pay_amount: number };
}

export interface ScriptedFreee {
  employees: Employee[];
  deals: Record<string, unknown>[];
  requests: { method: string; path: string }[];
  /** A token pair the API accepts (for the seeded connection). */
  issueTokens(): { accessToken: string; refreshToken: string };
  handle(request: Request, path: string): Promise<Response>;
}

export function createScriptedFreee(): ScriptedFreee {
  const access = new Set<string>();
  const refresh = new Set<string>();
  const requests: { method: string; path: string }[] = [];
  const employees: Employee[] = [
    { id: 1, num: "001", display_name: "山田 太郎", pay: { pay_calc_type: "monthly", pay_amount: 280_000 } },
    { id: 2, num: "002", display_name: "佐藤 花子", pay: { pay_calc_type: "monthly", pay_amount: 320_000 } },
    { id: 3, num: "003", display_name: "鈴木 一郎", pay: { pay_calc_type: "hourly", pay_amount: 1_500 } },
  ];
  const deals: Record<string, unknown>[] = [
    { id: 1, company_id: SANDBOX_COMPANY.id, issue_date: "2026-11-05", type: "expense", amount: 5_500, partner_id: 11, details: [{ account_item_id: 21, amount: 5_500, description: "タクシー代" }] },
    { id: 2, company_id: SANDBOX_COMPANY.id, issue_date: "2026-11-20", type: "income", amount: 330_000, partner_id: 12, details: [{ account_item_id: 22, amount: 330_000, description: "11月分 業務委託" }] },
  ];
  const partners = [
    { id: 11, name: "東京タクシー" },
    { id: 12, name: "株式会社サンプル商事" },
  ];
  const accountItems = [
    { id: 21, name: "旅費交通費" },
    { id: 22, name: "売上高" },
    { id: 23, name: "消耗品費" },
  ];

  const issueTokens = () => {
    const pair = { accessToken: `sandbox-access-${randomBytes(8).toString("hex")}`, refreshToken: `sandbox-refresh-${randomBytes(8).toString("hex")}` };
    access.add(pair.accessToken);
    refresh.add(pair.refreshToken);
    return pair;
  };

  async function handle(request: Request, path: string): Promise<Response> {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    requests.push({ method, path });
    const raw = method === "GET" ? "" : await request.text();
    if (method === "POST" && path === "/public_api/token") {
      const form = new URLSearchParams(raw);
      const token = form.get("refresh_token");
      if (form.get("grant_type") !== "refresh_token" || token === null || !refresh.delete(token)) return send(401, { error: "invalid_grant" });
      const pair = issueTokens();
      return send(200, { access_token: pair.accessToken, refresh_token: pair.refreshToken, token_type: "bearer", expires_in: 21_600, scope: "read write" });
    }
    const bearer = request.headers.get("authorization")?.replace(/^Bearer /, "");
    if (bearer === undefined || !access.has(bearer)) return send(401, { status_code: 401, errors: [{ type: "status", messages: ["アクセストークンが無効です"] }] });
    const body = raw === "" ? undefined : (JSON.parse(raw) as Record<string, unknown>);

    if (method === "GET" && path === "/api/1/companies") return send(200, { companies: [{ ...SANDBOX_COMPANY, display_name: SANDBOX_COMPANY.name, role: "admin" }] });
    if (method === "GET" && path === "/hr/api/v1/employees") {
      return send(200, { employees: employees.map(({ id, num, display_name }) => ({ id, num, display_name })), total_count: employees.length });
    }
    let m = /^\/hr\/api\/v1\/employees\/(\d+)(\/.*)?$/.exec(path);
    if (m) {
      const employee = employees.find((e) => e.id === Number(m![1]));
      if (employee === undefined) return send(404, { status_code: 404, errors: [{ type: "status", messages: ["従業員が見つかりません"] }] });
      const rest = m[2] ?? "";
      if (rest === "" && method === "GET") return send(200, { employee: { id: employee.id, num: employee.num, display_name: employee.display_name } });
      if (rest === "/basic_pay_rule" && method === "GET") return send(200, { employee_basic_pay_rule: employee.pay });
      if (rest === "/basic_pay_rule" && method === "PUT") {
        const rule = (body?.employee_basic_pay_rule ?? {}) as Partial<Employee["pay"]>;
        if (typeof rule.pay_amount !== "number") return send(400, { status_code: 400, errors: [{ type: "validation", messages: ["pay_amount が必要です"] }] });
        employee.pay = { pay_calc_type: rule.pay_calc_type ?? employee.pay.pay_calc_type, pay_amount: rule.pay_amount };
        return send(200, { employee_basic_pay_rule: employee.pay });
      }
      const wr = /^\/work_records\/(\d{4}-\d{2}-\d{2})$/.exec(rest);
      if (wr && method === "GET") return send(200, { date: wr[1], clock_in_at: `${wr[1]}T09:00:00+09:00`, clock_out_at: `${wr[1]}T18:00:00+09:00`, break_records: [] });
      if (wr && method === "PUT") return send(200, { date: wr[1], ...body });
    }
    if (method === "GET" && path === "/api/1/deals") {
      const type = url.searchParams.get("type");
      const list = type === null ? deals : deals.filter((d) => d.type === type);
      return send(200, { deals: list, meta: { total_count: list.length } });
    }
    if (method === "POST" && path === "/api/1/deals") {
      const deal = { id: deals.length + 1, ...body };
      deals.push(deal);
      return send(201, { deal });
    }
    if (method === "GET" && path === "/api/1/partners") return send(200, { partners });
    if (method === "GET" && path === "/api/1/account_items") return send(200, { account_items: accountItems });
    return send(404, { status_code: 404, errors: [{ type: "status", messages: ["見つかりません"] }] });
  }

  return { employees, deals, requests, issueTokens, handle };
}

function send(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8" } });
}
