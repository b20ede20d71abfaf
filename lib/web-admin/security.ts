import type { MiddlewareHandler } from "hono";

/**
 * Every answer of the web admin carries these. The pages are server-rendered HTML with one stylesheet of our own
 * (/admin/assets/admin.css) and no script: the policy allows nothing else, from anywhere — no CDN, no inline
 * script or style, no framing. Forms post only to this origin; sign-in leaves by a link, not a form.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "strict-transport-security": "max-age=63072000; includeSubDomains",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
  // Pages hold a workspace's books: no shared cache keeps them.
  "cache-control": "no-store",
};

/** After the route answered, so error pages, redirects and 404s carry them too. */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
  };
}
