import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSX } from "hono/jsx/jsx-runtime";

/**
 * A page rendered whole to a string before anything is sent: the components are synchronous, so the data is read
 * before rendering starts, and a failure cannot leave half a page in the browser.
 */
export function html(c: Context, element: JSX.Element, status: ContentfulStatusCode = 200): Response {
  if (element instanceof Promise) throw new Error("web admin pages render synchronously");
  return c.body(`<!doctype html>${element.toString()}`, status, { "content-type": "text/html; charset=utf-8" });
}
