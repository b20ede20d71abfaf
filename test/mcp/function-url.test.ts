import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { expect, it } from "vitest";
import { functionUrlHandler, functionUrlResultFromPlain, functionUrlResultFromResponse, plainFunctionUrlHandler, plainRequestFromFunctionUrlEvent, requestFromFunctionUrlEvent } from "../../lib/mcp/function-url";

const event = (over: Partial<APIGatewayProxyEventV2>): APIGatewayProxyEventV2 =>
  ({
    version: "2.0",
    routeKey: "$default",
    rawPath: "/freee/callback",
    rawQueryString: "code=abc&state=xyz",
    headers: { host: "abc.lambda-url.ap-northeast-1.on.aws", "content-type": "text/plain; charset=utf-8" },
    requestContext: { domainName: "abc.lambda-url.ap-northeast-1.on.aws", http: { method: "GET", path: "/freee/callback" } },
    isBase64Encoded: false,
    ...over,
  }) as APIGatewayProxyEventV2;

it("rebuilds URL, method, headers and a UTF-8 body (plain or base64) from a Function URL event", async () => {
  const get = requestFromFunctionUrlEvent(event({}));
  expect(get.url).toBe("https://abc.lambda-url.ap-northeast-1.on.aws/freee/callback?code=abc&state=xyz");
  expect(get.method).toBe("GET");

  const base64 = requestFromFunctionUrlEvent(
    event({ requestContext: { ...event({}).requestContext, http: { method: "POST" } } as never, body: Buffer.from("勤怠を確認", "utf8").toString("base64"), isBase64Encoded: true, cookies: ["a=1", "b=2"] }),
  );
  expect(await base64.text()).toBe("勤怠を確認");
  expect(base64.headers.get("cookie")).toBe("a=1; b=2");

  const plain = requestFromFunctionUrlEvent(event({ requestContext: { ...event({}).requestContext, http: { method: "POST" } } as never, body: "経費" }));
  expect(await plain.text()).toBe("経費");
});

it("turns a Response into a Function URL result: text stays text, Set-Cookie becomes cookies, binary is base64", async () => {
  const headers = new Headers({ "content-type": "text/html; charset=utf-8" });
  headers.append("set-cookie", "s=1; HttpOnly");
  const html = await functionUrlResultFromResponse(new Response("<p>freee の認証に失敗しました</p>", { status: 400, headers }));
  expect(html).toMatchObject({ statusCode: 400, body: "<p>freee の認証に失敗しました</p>", isBase64Encoded: false, cookies: ["s=1; HttpOnly"] });
  expect(html.headers).not.toHaveProperty("set-cookie");

  const bin = await functionUrlResultFromResponse(new Response(new Uint8Array([0, 1, 2]), { headers: { "content-type": "image/png" } }));
  expect(bin).toMatchObject({ isBase64Encoded: true, body: Buffer.from([0, 1, 2]).toString("base64") });

  const redirect = await functionUrlHandler(async () => Response.redirect("https://accounts.example/authorize", 302))(event({}));
  expect(redirect).toMatchObject({ statusCode: 302, headers: { location: "https://accounts.example/authorize" } });
});

it("the MCP server's plain request reads the event as the web Request does, and its answer is the result as it is", async () => {
  const post = (over: Partial<APIGatewayProxyEventV2>) => event({ requestContext: { ...event({}).requestContext, http: { method: "POST" } } as never, headers: { host: "abc.lambda-url.ap-northeast-1.on.aws", "Content-Type": "application/json", Authorization: "Bearer x" }, ...over });
  const cases = [
    post({ body: Buffer.from("\uFEFF{\"勤怠\":1}", "utf8").toString("base64"), isBase64Encoded: true, cookies: ["a=1", "b=2"] }),
    post({ body: "経費" }),
    event({ body: "ignored on a GET" }),
  ];
  for (const e of cases) {
    const [web, plain] = [requestFromFunctionUrlEvent(e), plainRequestFromFunctionUrlEvent(e)];
    expect([plain.method, plain.url, await plain.text()]).toEqual([web.method, web.url, await web.text()]);
    for (const name of ["content-type", "Authorization", "cookie", "host", "accept"]) expect(plain.headers.get(name), name).toBe(web.headers.get(name));
  }
  expect(functionUrlResultFromPlain({ status: 202, headers: {}, body: null })).toEqual({ statusCode: 202, headers: {}, body: "", isBase64Encoded: false });
  const served = await plainFunctionUrlHandler(async (req) => ({ status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ path: new URL(req.url).pathname, auth: req.headers.get("authorization") }) }))(post({}));
  expect(served).toEqual({ statusCode: 200, headers: { "content-type": "application/json" }, body: '{"path":"/freee/callback","auth":"Bearer x"}', isBase64Encoded: false });
});
