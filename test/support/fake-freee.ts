import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A scripted freee on 127.0.0.1 (ephemeral port): the OAuth token endpoint (authorization_code and
 * single-use refresh tokens, as freee has them), companies, HR employees / work records / basic pay rule, and
 * accounting deals / partners / account items. Faults are scripted per call (`fail`), every request is
 * recorded. API and OAuth share one base URL, so `FREEE_API_BASE_URL = FREEE_OAUTH_BASE_URL = fake.url`.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  body: unknown;
  /** Form fields of a token request. */
  form?: Record<string, string>;
}

export interface ScriptedFault {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

interface FaultRule {
  method?: string;
  path: string | RegExp;
  remaining: number;
  fault: ScriptedFault;
}

export const FAKE_CLIENT_ID = "fake-client-id";
export const FAKE_CLIENT_SECRET = "fake-client-secret";

export class FakeFreee {
  readonly requests: RecordedRequest[] = [];
  /** Access tokens the API accepts now. */
  readonly validAccessTokens = new Set<string>();
  /** Refresh tokens not yet used (single-use). */
  readonly validRefreshTokens = new Set<string>();
  /** Authorization codes the token endpoint accepts (single-use). */
  readonly validCodes = new Set<string>();
  refreshCalls = 0;
  /** Delay of the refresh response, to widen race windows in concurrency tests. */
  refreshDelayMs = 0;
  companies = [
    { id: 101, name: "テスト株式会社", display_name: "テスト株式会社", role: "admin" },
    { id: 202, name: "別会社", display_name: "別会社", role: "admin" },
  ];
  deals: Record<string, unknown>[] = [{ id: 1, company_id: 101, issue_date: "2026-01-05", type: "expense", amount: 5000 }];
  private faults: FaultRule[] = [];
  private counter = 0;
  private server: Server | undefined;
  url = "";

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        res.writeHead(599, { "content-type": "text/plain" });
        res.end(String(err));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (this.server === undefined) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** A fresh token pair, as if the workspace had just connected. */
  issueTokens(): { accessToken: string; refreshToken: string } {
    const n = ++this.counter;
    const pair = { accessToken: `fake-access-${n}-${Math.random().toString(36).slice(2)}`, refreshToken: `fake-refresh-${n}-${Math.random().toString(36).slice(2)}` };
    this.validAccessTokens.add(pair.accessToken);
    this.validRefreshTokens.add(pair.refreshToken);
    return pair;
  }

  issueCode(): string {
    const code = `code-${++this.counter}`;
    this.validCodes.add(code);
    return code;
  }

  /** The next `times` requests matching (method, path) get this response instead of the normal one. */
  fail(match: { method?: string; path: string | RegExp }, fault: ScriptedFault, times = 1): void {
    this.faults.push({ ...match, remaining: times, fault });
  }

  /** Make every access token invalid (as when freee expires it): the next API call gets 401. */
  revokeAccessTokens(): void {
    this.validAccessTokens.clear();
  }

  apiRequests(path?: string | RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.path !== "/public_api/token" && (path === undefined || (typeof path === "string" ? r.path === path : path.test(r.path))));
  }

  tokenRequests(grantType?: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === "/public_api/token" && (grantType === undefined || r.form?.grant_type === grantType));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const raw = await readAll(req);
    const contentType = req.headers["content-type"] ?? "";
    const form = contentType.includes("x-www-form-urlencoded") ? Object.fromEntries(new URLSearchParams(raw)) : undefined;
    const body = contentType.includes("json") && raw !== "" ? JSON.parse(raw) : undefined;
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization,
      body,
      ...(form === undefined ? {} : { form }),
    };
    this.requests.push(recorded);

    const rule = this.faults.find(
      (f) => f.remaining > 0 && (f.method === undefined || f.method === recorded.method) && (typeof f.path === "string" ? f.path === recorded.path : f.path.test(recorded.path)),
    );
    if (rule !== undefined) {
      rule.remaining--;
      return send(res, rule.fault.status, rule.fault.body ?? { status_code: rule.fault.status, errors: [{ type: "status", messages: [`scripted ${rule.fault.status}`] }] }, rule.fault.headers);
    }

    if (recorded.path === "/public_api/token" && recorded.method === "POST") return this.token(form ?? {}, res);

    const bearer = recorded.authorization?.replace(/^Bearer /, "");
    if (bearer === undefined || !this.validAccessTokens.has(bearer)) {
      return send(res, 401, { status_code: 401, errors: [{ type: "status", messages: ["アクセストークンが無効です"] }] });
    }
    return this.api(recorded, res);
  }

  private async token(form: Record<string, string>, res: ServerResponse): Promise<void> {
    if (form.client_id !== FAKE_CLIENT_ID || form.client_secret !== FAKE_CLIENT_SECRET) {
      return send(res, 401, { error: "invalid_client" });
    }
    if (form.grant_type === "authorization_code") {
      if (form.code === undefined || !this.validCodes.delete(form.code)) return send(res, 400, { error: "invalid_grant" });
      const pair = this.issueTokens();
      return send(res, 200, { access_token: pair.accessToken, refresh_token: pair.refreshToken, token_type: "bearer", expires_in: 21600, scope: "read write", company_id: null });
    }
    if (form.grant_type === "refresh_token") {
      this.refreshCalls++;
      if (this.refreshDelayMs > 0) await new Promise((r) => setTimeout(r, this.refreshDelayMs));
      if (form.refresh_token === undefined || !this.validRefreshTokens.delete(form.refresh_token)) {
        return send(res, 401, { error: "invalid_grant" });
      }
      const pair = this.issueTokens();
      return send(res, 200, { access_token: pair.accessToken, refresh_token: pair.refreshToken, token_type: "bearer", expires_in: 21600, scope: "read write" });
    }
    return send(res, 400, { error: "unsupported_grant_type" });
  }

  private api(r: RecordedRequest, res: ServerResponse): void {
    const m = r.method;
    const p = r.path;
    if (m === "GET" && p === "/api/1/companies") return send(res, 200, { companies: this.companies });
    if (m === "GET" && p === "/hr/api/v1/employees") {
      return send(res, 200, { employees: [{ id: 1, num: "001", display_name: "山田 太郎" }, { id: 2, num: "002", display_name: "佐藤 花子" }], total_count: 2 });
    }
    let match = /^\/hr\/api\/v1\/employees\/(\d+)$/.exec(p);
    if (m === "GET" && match) {
      if (match[1] === "404") return send(res, 404, { status_code: 404, errors: [{ type: "status", messages: ["従業員が見つかりません"] }] });
      return send(res, 200, { employee: { id: Number(match[1]), display_name: "山田 太郎" } });
    }
    match = /^\/hr\/api\/v1\/employees\/(\d+)\/work_records\/(\d{4}-\d{2}-\d{2})$/.exec(p);
    if (match && m === "GET") return send(res, 200, { date: match[2], clock_in_at: `${match[2]}T09:00:00+09:00`, clock_out_at: `${match[2]}T18:00:00+09:00`, break_records: [] });
    if (match && m === "PUT") return send(res, 200, { date: match[2], ...(r.body as object) });
    match = /^\/hr\/api\/v1\/employees\/(\d+)\/basic_pay_rule$/.exec(p);
    if (match && m === "GET") return send(res, 200, { employee_basic_pay_rule: { pay_calc_type: "monthly", pay_amount: 300000 } });
    if (match && m === "PUT") return send(res, 200, (r.body as { employee_basic_pay_rule: unknown }) ?? {});
    if (m === "GET" && p === "/api/1/deals") return send(res, 200, { deals: this.deals, meta: { total_count: this.deals.length } });
    if (m === "POST" && p === "/api/1/deals") {
      const deal = { id: this.deals.length + 1, ...(r.body as object) };
      this.deals.push(deal);
      return send(res, 201, { deal });
    }
    if (m === "GET" && p === "/api/1/partners") return send(res, 200, { partners: [{ id: 11, name: "取引先A" }] });
    if (m === "GET" && p === "/api/1/account_items") return send(res, 200, { account_items: [{ id: 21, name: "旅費交通費" }] });
    return send(res, 404, { status_code: 404, errors: [{ type: "status", messages: ["not found"] }] });
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}

function readAll(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export async function startFakeFreee(): Promise<FakeFreee> {
  return new FakeFreee().start();
}
