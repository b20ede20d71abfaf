import { createHash, randomBytes } from "node:crypto";
import { apiOfPath, checkRequest, type FreeeApi } from "../../../lib/freee/openapi/validator";
import { checkResponse } from "../../../lib/freee/openapi/responses";
import { json, listen, LOST_REPLY, pathMatches, sleep, type FakeReply, type ListeningFake } from "../http";
import { badRequestBody, defaultErrorBody, notFoundBody, rateLimitHeaders, throttledBody, tooManyRequestsBody, unauthorizedBody, type RateLimitState, type RateWindow, type Unauthorized } from "./errors";
import { genericRoute } from "./generic-routes";
import { ROUTES, type RouteContext } from "./routes";
import { HR_ROUTES } from "./routes-hr";
import { MORE_ROUTES } from "./routes-more";
import { seedCompany, type CompanyData } from "./state";

/**
 * One freee for the tests and the sandbox: the OAuth endpoints (authorize, token with single-use codes and
 * refresh tokens) and the accounting, HR and invoice operations vendored in lib/freee/openapi, on one base URL
 * (`FREEE_API_BASE_URL = FREEE_OAUTH_BASE_URL = fake.url`). Strict as freee is: a request its schema rejects gets
 * freee's 400 body; a bad or expired token 401 `expired_access_token`; a company the token's user does not
 * belong to 401 `company_not_found`; an unknown record 404; past a rate limit 429 with X-RateLimit-* headers (invoice:
 * an hour, a minute and a day window); while throttled (`throttle`) 403 for ten minutes, as the schemas describe.
 * Writes change the state, so a read after a write sees it. Every success body is checked against the vendored
 * response schema (a fake that answers what freee would not fails loudly).
 */

export const FAKE_CLIENT_ID = "fake-client-id";
export const FAKE_CLIENT_SECRET = "fake-client-secret";

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  body: unknown;
  /** Form fields of a token request. */
  form?: Record<string, string>;
  /** The files of a multipart/form-data request (the file box), by form field. */
  files?: Record<string, { name: string; type: string; size: number; sha256: string }>;
  api?: FreeeApi;
  operationId?: string;
  /** The status answered (undefined for a lost reply). */
  status?: number;
}

export type ScriptedFault =
  /** Answer this instead; with `processed`, freee did the work first (a write happens) and only the answer is a failure. */
  | { status: number; headers?: Record<string, string>; body?: unknown; processed?: boolean }
  /** Process the request (a write happens) and drop the connection before answering. */
  | { lostReply: true }
  /** Wait, then answer normally (a slow freee, for timeout tests). */
  | { delayMs: number }
  /** Hold the request until the test lets it go, then answer normally (a write in flight at a chosen moment). */
  | { holdUntil: Promise<unknown> };

interface FaultRule {
  method?: string;
  path: string | RegExp;
  remaining: number;
  fault: ScriptedFault;
}

interface Grant {
  userId: number;
  companyIds: number[];
}

export interface FakeFreeeOptions {
  companies?: CompanyData[];
  clientId?: string;
  clientSecret?: string;
  clock?: () => number;
  accessTokenTtlSeconds?: number;
  /** freee ignores properties it does not know (the default); "reject" answers 400 for them. */
  unknownProperties?: "ignore" | "reject";
}

export class FakeFreee {
  readonly requests: RecordedRequest[] = [];
  readonly companies: CompanyData[];
  /** Responses that did not match freee's own response schema (should stay empty). */
  readonly selfCheckFailures: string[] = [];
  refreshCalls = 0;
  /** Delay of the refresh response, to widen race windows in concurrency tests. */
  refreshDelayMs = 0;
  url = "";
  private readonly accessTokens = new Map<string, Grant & { expiresAt: number }>();
  private readonly refreshTokens = new Map<string, Grant>();
  private readonly codes = new Map<string, Grant & { companyId?: number }>();
  private readonly faults: FaultRule[] = [];
  private readonly limits = new Map<FreeeApi, Map<RateWindow, { limit: number; windowMs: number; windowStart: number; used: number }>>();
  private throttledUntil = Number.NEGATIVE_INFINITY;
  private readonly clock: () => number;
  private readonly o: Required<Omit<FakeFreeeOptions, "companies" | "clock">>;
  private server: ListeningFake | undefined;

  constructor(options: FakeFreeeOptions = {}) {
    this.companies = options.companies ?? [seedCompany({ id: 101, name: "テスト株式会社" }), seedCompany({ id: 202, name: "別会社" })];
    this.clock = options.clock ?? Date.now;
    this.o = {
      clientId: options.clientId ?? FAKE_CLIENT_ID,
      clientSecret: options.clientSecret ?? FAKE_CLIENT_SECRET,
      accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 21_600,
      unknownProperties: options.unknownProperties ?? "ignore",
    };
    // freee HR: 10,000 requests an hour; invoice: 1,500 an hour, 30 a minute, 3,000 a day (the smallest plan's);
    // both reported on every response.
    this.setRateLimit("hr", { limit: 10_000, windowSeconds: 3600 });
    this.setRateLimit("invoice", { limit: 1500, windowSeconds: 3600, perMinute: 30, perDay: 3000 });
  }

  async start(port?: number): Promise<this> {
    this.server = await listen((request) => this.handle(request), port === undefined ? {} : { port });
    this.url = this.server.url;
    return this;
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }

  company(id: number): CompanyData {
    const c = this.companies.find((x) => x.id === id);
    if (c === undefined) throw new Error(`fake freee has no company ${id}`);
    return c;
  }

  /** A fresh token pair, as if the user (of every company by default) had just connected. */
  issueTokens(grant: Partial<Grant> = {}): { accessToken: string; refreshToken: string } {
    const g = { userId: grant.userId ?? 1, companyIds: grant.companyIds ?? this.companies.map((c) => c.id) };
    const accessToken = `fake-access-${randomBytes(9).toString("hex")}`;
    const refreshToken = `fake-refresh-${randomBytes(9).toString("hex")}`;
    this.accessTokens.set(accessToken, { ...g, expiresAt: this.clock() + this.o.accessTokenTtlSeconds * 1000 });
    this.refreshTokens.set(refreshToken, g);
    return { accessToken, refreshToken };
  }

  /** An authorization code the token endpoint accepts once; `companyId` is what the user picked on freee's page. */
  issueCode(options: Partial<Grant> & { companyId?: number } = {}): string {
    const code = `code-${randomBytes(6).toString("hex")}`;
    this.codes.set(code, { userId: options.userId ?? 1, companyIds: options.companyIds ?? this.companies.map((c) => c.id), ...(options.companyId === undefined ? {} : { companyId: options.companyId }) });
    return code;
  }

  /** Every access token expires now (as after 6 hours): the next API call gets 401 expired_access_token. */
  expireAccessTokens(): void {
    for (const grant of this.accessTokens.values()) grant.expiresAt = this.clock() - 1;
  }

  /** Whether freee would accept this access token now (issued, not expired). */
  acceptsAccessToken(token: string): boolean {
    const grant = this.accessTokens.get(token);
    return grant !== undefined && grant.expiresAt > this.clock();
  }

  /** Whether this refresh token is still unused. */
  acceptsRefreshToken(token: string): boolean {
    return this.refreshTokens.has(token);
  }

  /** The refresh tokens handed out so far stop working (revoked on freee's side): refresh answers invalid_grant. */
  revokeRefreshTokens(): void {
    this.refreshTokens.clear();
  }

  /** The next `times` requests matching (method, path) get this fault instead of the normal answer. */
  fail(match: { method?: string; path: string | RegExp }, fault: ScriptedFault, times = 1): void {
    this.faults.push({ ...match, remaining: times, fault });
  }

  /** Forget scripted faults not used up yet. */
  clearFaults(): void {
    this.faults.length = 0;
  }

  /**
   * At most `limit` requests to one API per window (and `perMinute` / `perDay` more, as invoice counts); past any of
   * them 429 with freee's headers and body. Every window starts now.
   */
  setRateLimit(api: FreeeApi, rule: { limit: number; windowSeconds: number; perMinute?: number; perDay?: number } | undefined): void {
    if (rule === undefined) {
      this.limits.delete(api);
      return;
    }
    const start = this.clock();
    const windows = new Map<RateWindow, { limit: number; windowMs: number; windowStart: number; used: number }>([["hour", { limit: rule.limit, windowMs: rule.windowSeconds * 1000, windowStart: start, used: 0 }]]);
    if (rule.perMinute !== undefined) windows.set("minute", { limit: rule.perMinute, windowMs: 60_000, windowStart: start, used: 0 });
    if (rule.perDay !== undefined) windows.set("day", { limit: rule.perDay, windowMs: 86_400_000, windowStart: start, used: 0 });
    this.limits.set(api, windows);
  }

  /** freee's throttle: every API request answers 403 for `forMs` (freee: 「10分程度」) from now. */
  throttle(forMs = 10 * 60_000): void {
    this.throttledUntil = this.clock() + forMs;
  }

  apiRequests(path?: string | RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.api !== undefined && (path === undefined || pathMatches(path, r.path)));
  }

  tokenRequests(grantType?: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === "/public_api/token" && (grantType === undefined || r.form?.grant_type === grantType));
  }

  /** Fetch-style entry; `path` overrides the URL's path when the fake is mounted under a prefix (the sandbox). */
  async handle(request: Request, path?: string): Promise<FakeReply> {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const contentType = request.headers.get("content-type") ?? "";
    const multipart = contentType.startsWith("multipart/form-data");
    const form = multipart ? await readForm(request) : undefined;
    const raw = method === "GET" || method === "HEAD" || multipart ? "" : await request.text();
    const recorded: RecordedRequest = {
      method,
      path: path ?? url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: request.headers.get("authorization") ?? undefined,
      body: undefined,
    };
    const api = apiOfPath(recorded.path);
    if (api !== undefined) recorded.api = api;
    this.requests.push(recorded);

    let parsed: unknown;
    if (form !== undefined) {
      if (form === "malformed") return this.answer(recorded, 400, badRequestBody(api ?? "accounting", ["リクエストの形式が不正です。"]));
      parsed = form.fields;
      recorded.files = form.files;
    } else if (contentType.includes("x-www-form-urlencoded")) recorded.form = Object.fromEntries(new URLSearchParams(raw));
    else if (raw !== "") {
      try {
        parsed = JSON.parse(raw);
      } catch (err) {
        if (!(err instanceof SyntaxError)) throw err;
        return this.answer(recorded, 400, badRequestBody(api ?? "accounting", ["リクエストの形式が不正です。"]));
      }
    }
    recorded.body = parsed;

    const rule = this.faults.find((f) => f.remaining > 0 && (f.method === undefined || f.method === method) && pathMatches(f.path, recorded.path));
    if (rule !== undefined) {
      rule.remaining--;
      if ("status" in rule.fault) {
        if (rule.fault.processed === true) await this.route(recorded, url, api);
        return this.answer(recorded, rule.fault.status, rule.fault.body ?? defaultErrorBody(api ?? "accounting", rule.fault.status), rule.fault.headers);
      }
      if ("delayMs" in rule.fault) await sleep(rule.fault.delayMs);
      if ("holdUntil" in rule.fault) await rule.fault.holdUntil;
      if ("lostReply" in rule.fault) {
        await this.route(recorded, url, api);
        recorded.status = undefined;
        return LOST_REPLY;
      }
    }
    return this.route(recorded, url, api);
  }

  private async route(r: RecordedRequest, url: URL, api: FreeeApi | undefined): Promise<Response> {
    if (r.path === "/public_api/token" && r.method === "POST") return this.token(r);
    if (r.path === "/public_api/authorize" && r.method === "GET") return this.authorize(r, url);
    if (api === undefined) return this.answer(r, 404, notFoundBody("accounting", "Not Found"));

    if (this.clock() < this.throttledUntil) return this.answer(r, 403, throttledBody(api));
    const limited = this.countRequest(api);
    if (limited !== undefined) return this.answer(r, 429, tooManyRequestsBody(api, limited), rateLimitHeaders(limited, api));

    const bearer = /^Bearer (.+)$/.exec(r.authorization ?? "")?.[1];
    const grant = bearer === undefined ? undefined : this.accessTokens.get(bearer);
    if (grant === undefined || grant.expiresAt <= this.clock()) return this.unauthorized(r, "expired_access_token");

    const multipart = r.files === undefined ? {} : { multipart: { fileFields: Object.keys(r.files) } };
    const check = checkRequest({ method: r.method, path: r.path, query: Object.fromEntries(multiQuery(url.searchParams)), body: r.body, ...multipart }, { unknownProperties: this.o.unknownProperties });
    if (!check.ok && check.reason === "unknown_operation") return this.answer(r, 404, notFoundBody(api, "Not Found"));
    if (!check.ok) {
      r.operationId = check.operation.operationId;
      return this.answer(r, 400, badRequestBody(api, check.issues.map((i) => i.message)));
    }
    r.operationId = check.operation.operationId;

    // The company is in the body, the query, or the path (`/api/1/taxes/companies/{company_id}`, `/api/1/companies/{id}`).
    const inPath = check.pathParams.company_id ?? (/\/companies\/\{id\}$/.test(check.operation.path) ? check.pathParams.id : undefined);
    const companyId = Number((r.body as { company_id?: unknown } | undefined)?.company_id ?? url.searchParams.get("company_id") ?? inPath ?? Number.NaN);
    const mine = this.companies.filter((c) => grant.companyIds.includes(c.id));
    const company = Number.isNaN(companyId) ? mine[0] : mine.find((c) => c.id === companyId);
    if (company === undefined) return this.unauthorized(r, "company_not_found");

    const operation = check.operation;
    const route = ROUTES[operation.operationId] ?? MORE_ROUTES[operation.operationId] ?? HR_ROUTES[operation.operationId] ?? ((ctx: RouteContext) => genericRoute(ctx, operation));
    const [status, body] = route({
      api,
      operation,
      company,
      companies: mine,
      userId: grant.userId,
      query: url.searchParams,
      pathParams: check.pathParams,
      body: (check.normalised.body ?? r.body ?? {}) as Record<string, unknown>,
      files: r.files ?? {},
      baseUrl: this.url,
    });
    if (status < 300) {
      const issues = checkResponse(check.operation, status, body);
      if (issues.length > 0) {
        const failure = `${check.operation.operationId} ${status}: ${issues.map((i) => `${i.at} ${i.message}`).join("; ")}`;
        this.selfCheckFailures.push(failure);
        throw new Error(`fake freee answered what freee's schema does not allow: ${failure}`);
      }
    }
    return this.answer(r, status, body, this.rateHeaders(api));
  }

  private unauthorized(r: RecordedRequest, code: Unauthorized): Response {
    return this.answer(r, 401, unauthorizedBody(code), this.rateHeaders(r.api));
  }

  private answer(r: RecordedRequest, status: number, body: unknown, headers: Record<string, string> = {}): Response {
    r.status = status;
    return json(status, body, { "x-freee-request-id": randomBytes(8).toString("hex"), ...headers });
  }

  /** Counts a request against its API's windows; the state past any limit, or undefined while within them all. */
  private countRequest(api: FreeeApi): RateLimitState | undefined {
    const windows = this.limits.get(api);
    if (windows === undefined) return undefined;
    const now = this.clock();
    let over = false;
    for (const w of windows.values()) {
      if (now - w.windowStart >= w.windowMs) Object.assign(w, { windowStart: now, used: 0 });
      w.used += 1;
      if (w.used > w.limit) over = true;
    }
    return over ? this.rateState(api) : undefined;
  }

  private rateState(api: FreeeApi): RateLimitState | undefined {
    const windows = this.limits.get(api);
    const hour = windows?.get("hour");
    if (windows === undefined || hour === undefined) return undefined;
    const others = [...windows].filter((e): e is ["minute" | "day", typeof hour] => e[0] !== "hour").map(([window, w]) => ({ window, limit: w.limit, remaining: w.limit - w.used, reset: new Date(w.windowStart + w.windowMs) }));
    return {
      limit: hour.limit,
      remaining: hour.limit - hour.used,
      reset: new Date(hour.windowStart + hour.windowMs),
      periodSeconds: hour.windowMs / 1000,
      ...(others.length === 0 ? {} : { others }),
    };
  }

  /** HR and invoice report the usage on every response; accounting only on a 429. */
  private rateHeaders(api: FreeeApi | undefined): Record<string, string> {
    if (api === undefined || api === "accounting") return {};
    const state = this.rateState(api);
    return state === undefined ? {} : rateLimitHeaders(state, api);
  }

  private authorize(r: RecordedRequest, url: URL): Response {
    const redirect = url.searchParams.get("redirect_uri");
    if (url.searchParams.get("client_id") !== this.o.clientId || redirect === null) return this.answer(r, 400, { error: "invalid_request" });
    // The user consents and picks the first company (the sandbox's "connect freee" plays this by itself).
    const target = new URL(redirect);
    target.searchParams.set("code", this.issueCode({ companyId: this.companies[0]?.id }));
    const state = url.searchParams.get("state");
    if (state !== null) target.searchParams.set("state", state);
    r.status = 302;
    return new Response(null, { status: 302, headers: { location: target.toString() } });
  }

  private async token(r: RecordedRequest): Promise<Response> {
    const form = r.form ?? {};
    if (form.client_id !== this.o.clientId || form.client_secret !== this.o.clientSecret) return this.answer(r, 401, { error: "invalid_client", error_description: "クライアント認証に失敗しました。" });
    if (form.grant_type === "authorization_code") {
      const code = form.code === undefined ? undefined : this.codes.get(form.code);
      if (form.code === undefined || code === undefined) return this.answer(r, 400, { error: "invalid_grant", error_description: "認可コードが無効です。" });
      this.codes.delete(form.code);
      const pair = this.issueTokens(code);
      return this.answer(r, 200, { access_token: pair.accessToken, token_type: "bearer", expires_in: this.o.accessTokenTtlSeconds, refresh_token: pair.refreshToken, scope: "read write", created_at: Math.floor(this.clock() / 1000), company_id: code.companyId ?? null });
    }
    if (form.grant_type === "refresh_token") {
      this.refreshCalls++;
      if (this.refreshDelayMs > 0) await sleep(this.refreshDelayMs);
      const grant = form.refresh_token === undefined ? undefined : this.refreshTokens.get(form.refresh_token);
      // Single use: a refresh token works once (freee's token lifetime FAQ).
      if (form.refresh_token === undefined || grant === undefined) return this.answer(r, 401, { error: "invalid_grant", error_description: "リフレッシュトークンが無効です。" });
      this.refreshTokens.delete(form.refresh_token);
      const pair = this.issueTokens(grant);
      return this.answer(r, 200, { access_token: pair.accessToken, token_type: "bearer", expires_in: this.o.accessTokenTtlSeconds, refresh_token: pair.refreshToken, scope: "read write", created_at: Math.floor(this.clock() / 1000) });
    }
    return this.answer(r, 400, { error: "unsupported_grant_type" });
  }
}

function multiQuery(params: URLSearchParams): [string, string | string[]][] {
  const out = new Map<string, string[]>();
  for (const [k, v] of params) out.set(k, [...(out.get(k) ?? []), v]);
  return [...out].map(([k, vs]) => [k, vs.length === 1 ? (vs[0] as string) : vs]);
}

export async function startFakeFreee(options: FakeFreeeOptions = {}): Promise<FakeFreee> {
  return new FakeFreee(options).start();
}

/** A multipart/form-data body as freee reads it: text fields, and files by field (size and digest kept). */
async function readForm(request: Request): Promise<{ fields: Record<string, string>; files: NonNullable<RecordedRequest["files"]> } | "malformed"> {
  let data: FormData;
  try {
    data = await request.formData();
  } catch (err) {
    if (err instanceof TypeError) return "malformed";
    throw err;
  }
  const fields: Record<string, string> = {};
  const files: NonNullable<RecordedRequest["files"]> = {};
  for (const [key, value] of data.entries()) {
    if (typeof value === "string") fields[key] = value;
    else {
      const bytes = new Uint8Array(await value.arrayBuffer());
      files[key] = { name: value.name, type: value.type, size: bytes.byteLength, sha256: createHash("sha256").update(bytes).digest("hex") };
    }
  }
  return { fields, files };
}
