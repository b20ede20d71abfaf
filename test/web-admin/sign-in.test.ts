import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPairSync } from "node:crypto";
import { AdminMessages, WebAdminMessages } from "../../lib/core/messages/ja";
import { CONTENT_SECURITY_POLICY } from "../../lib/web-admin/security";
import { Browser, csrfOf, startAdmin, USERS, type AdminHarness } from "./harness";

/** Sign in with Slack over HTTP: the web Lambda's router on 127.0.0.1, the fake Slack's OpenID endpoints, DynamoDB Local. */
let h: AdminHarness;
beforeAll(async () => {
  h = await startAdmin();
}, 60_000);
afterAll(async () => h?.close());

describe("not signed in", () => {
  it("any /admin page is a 302 to /login carrying the page asked for", async () => {
    const res = await new Browser(h.url).get("/admin/tasks?status=failed");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/login?next=${encodeURIComponent("/admin/tasks?status=failed")}`);
  });

  it("a forged or expired session cookie is no session", async () => {
    const b = new Browser(h.url);
    b.cookies.set("__Host-admin_session", `${Buffer.from(JSON.stringify({ teamId: "T0001", userId: "UADMIN1", name: "x", sid: "s", exp: 9999999999 })).toString("base64url")}.bad`);
    expect((await b.get("/admin/settings")).status).toBe(302);
  });

  it("an unknown path is 404 「ページが見つかりません」; below /admin as the admin's page with its security headers", async () => {
    const outside = await new Browser(h.url).get("/no/such/page");
    expect(outside.status).toBe(404);
    expect(await outside.text()).toBe(AdminMessages.notFound);
    const b = new Browser(h.url);
    await b.signIn(USERS.member1.id);
    const res = await b.get("/admin/no/such/page");
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain(`<h1>${AdminMessages.notFound}</h1>`);
    expect(res.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
  });
});

describe("sign-in", () => {
  it("returns to the page asked for, with a signed HttpOnly Secure SameSite cookie that expires", async () => {
    const b = new Browser(h.url);
    const asked = await b.get("/admin/tasks?status=failed");
    const start = await b.get(`/login/slack${new URL(asked.headers.get("location")!, h.url).search}`);
    const authorize = new URL(start.headers.get("location")!);
    expect(authorize.searchParams.get("scope")).toBe("openid profile");
    expect(authorize.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(authorize.searchParams.get("nonce")).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${h.url}/login/callback`);
    authorize.searchParams.set("user", USERS.admin1.id);
    const back = await fetch(authorize, { redirect: "manual" });
    const callback = await b.get(back.headers.get("location")!);
    expect(callback.status).toBe(302);
    expect(callback.headers.get("location")).toBe("/admin/tasks?status=failed");
    const session = callback.headers.getSetCookie().find((c) => c.startsWith("__Host-admin_session="))!;
    expect(session).toMatch(/; Path=\/; Max-Age=28800; HttpOnly; Secure; SameSite=Lax$/);
    const page = await b.follow(callback);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("管理者");
    // Audited: who signed in, to which workspace.
    const entries = await h.store.listAuditByTeam("T0001");
    expect(entries.some((e) => e.action === "admin.signed_in" && e.actor === USERS.admin1.id)).toBe(true);
  });

  it("a callback whose state is not this browser's is refused", async () => {
    const victim = new Browser(h.url);
    const start = await victim.get("/login/slack?next=/admin");
    const authorize = new URL(start.headers.get("location")!);
    authorize.searchParams.set("user", USERS.admin1.id);
    const back = await fetch(authorize, { redirect: "manual" });
    // Another browser (the attacker's sign-in state) takes the victim's code.
    const attacker = new Browser(h.url);
    await attacker.get("/login/slack?next=/admin");
    const res = await attacker.get(back.headers.get("location")!);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(WebAdminMessages.signInFailed);
    expect(attacker.cookies.has("__Host-admin_session")).toBe(false);
  });

  it("a callback whose state was changed is refused, though its code and nonce are this sign-in's", async () => {
    const b = new Browser(h.url);
    const authorize = new URL((await b.get("/login/slack?next=/admin")).headers.get("location")!);
    authorize.searchParams.set("user", USERS.admin1.id);
    const back = new URL((await fetch(authorize, { redirect: "manual" })).headers.get("location")!);
    back.searchParams.set("state", "x".repeat(32));
    const res = await b.get(`${back.pathname}${back.search}`);
    expect(res.status).toBe(400);
    expect(b.cookies.has("__Host-admin_session")).toBe(false);
  });

  it("an id token with another nonce, or not signed by Slack's key, is refused", async () => {
    const b = new Browser(h.url);
    const start = await b.get("/login/slack?next=/admin");
    const authorize = new URL(start.headers.get("location")!);
    authorize.searchParams.set("nonce", "not-the-nonce-this-sign-in-sent");
    authorize.searchParams.set("user", USERS.admin1.id);
    const back = await fetch(authorize, { redirect: "manual" });
    const res = await b.get(back.headers.get("location")!);
    expect(res.status).toBe(400);
    expect(b.cookies.has("__Host-admin_session")).toBe(false);

    // The exchange answers a token with the right claims and nonce, but signed by another key, or altered.
    const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    const forgeries: Array<[string, (claims: Record<string, unknown>) => string]> = [
      ["another key", (claims) => h.slack.openid.sign(claims, otherKey)],
      ["another audience", (claims) => h.slack.openid.sign({ ...claims, aud: "someone-elses-client" })],
      ["another issuer", (claims) => h.slack.openid.sign({ ...claims, iss: "https://evil.example" })],
      ["expired", (claims) => h.slack.openid.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 3600 })],
      ["another workspace in the payload", (claims) => { const t = h.slack.openid.sign(claims).split("."); return [t[0], Buffer.from(JSON.stringify({ ...claims, "https://slack.com/team_id": "T0002" })).toString("base64url"), t[2]].join("."); }],
    ];
    for (const [what, forge] of forgeries) {
      h.slack.openid.forgeNext(forge);
      const b2 = new Browser(h.url);
      const res2 = await b2.signIn(USERS.admin1.id);
      expect(res2.status, what).toBe(400);
      expect(b2.cookies.has("__Host-admin_session"), what).toBe(false);
    }
  });

  it("a member of a workspace that has not installed the app is refused", async () => {
    const res = await new Browser(h.url).signIn(USERS.outsider.id);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain(WebAdminMessages.notInstalled);
  });

  it("Slack's refusal (error=access_denied) is the sign-in failure page", async () => {
    h.slack.openid.failNextAuthorize("access_denied");
    const res = await new Browser(h.url).signIn(USERS.admin1.id);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(WebAdminMessages.signInFailed);
  });

  it("sign-out needs the CSRF token and ends the session", async () => {
    const b = new Browser(h.url);
    const page = await b.signIn(USERS.member1.id, "/admin/tasks");
    const csrf = csrfOf(await page.text());
    expect((await b.post("/logout", { _csrf: "wrong" })).status).toBe(403);
    expect(b.cookies.has("__Host-admin_session")).toBe(true);
    const out = await b.post("/logout", { _csrf: csrf });
    expect(out.headers.get("location")).toBe("/login?signed_out=1");
    expect(b.cookies.has("__Host-admin_session")).toBe(false);
    expect((await b.get("/admin/tasks")).status).toBe(302);
  });
});

describe("every answer carries the security headers", () => {
  it("pages, redirects, the sign-in page and the stylesheet", async () => {
    const b = new Browser(h.url);
    for (const res of [await b.get("/login"), await b.get("/admin"), await b.get("/admin/assets/admin.css"), await b.get("/login/slack")]) {
      expect(res.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toContain("unsafe-inline");
  });

  it("no page loads anything from another origin (no CDN) and none has a script", async () => {
    const b = new Browser(h.url);
    const html = await (await b.signIn(USERS.admin1.id, "/admin/settings")).text();
    expect(html).not.toMatch(/<script/i);
    expect([...html.matchAll(/(?:src|href)="(https?:[^"]+)"/g)].map((m) => m[1])).toEqual([]);
  });
});
