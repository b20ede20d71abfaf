import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../../lib/core/observability/logger";
import { redact, REDACTED, redactString } from "../../../lib/core/redaction/redact";

const SLACK_TOKEN = "xoxb-1234567890-1234567890123-abcdefghijklmnopqrstuvwx";
const ANTHROPIC_KEY = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
const TASK_TOKEN = `AAAA${"Q".repeat(300)}`;

function captureStdout() {
  const lines: string[] = [];
  const push = (chunk: string | Uint8Array) => {
    lines.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    return true;
  };
  // Powertools writes INFO to stdout and ERROR to stderr.
  const out = vi.spyOn(process.stdout, "write").mockImplementation(push);
  const err = vi.spyOn(process.stderr, "write").mockImplementation(push);
  return { lines, restore: () => (out.mockRestore(), err.mockRestore()) };
}

describe("secret redaction in logs", () => {
  afterEach(() => vi.restoreAllMocks());

  it("the logger redacts secrets by key and by value, keeps Japanese as UTF-8", () => {
    const out = captureStdout();
    const log = createLogger("test");
    log.info("トークン更新 xoxb は出さない " + SLACK_TOKEN, {
      botToken: SLACK_TOKEN,
      access_token: "freee-access-123456789",
      refresh_token: "freee-refresh-123456789",
      headers: { authorization: `Bearer ${ANTHROPIC_KEY}` },
      nested: { note: `key=${ANTHROPIC_KEY}`, taskToken: TASK_TOKEN, clientSecret: "shh-very-secret" },
      inputTokens: 1234,
      message_ja: "山田さんの基本給",
    });
    out.restore();
    const text = out.lines.join("");
    expect(text).not.toContain(SLACK_TOKEN);
    expect(text).not.toContain(ANTHROPIC_KEY);
    expect(text).not.toContain("freee-access-123456789");
    expect(text).not.toContain("freee-refresh-123456789");
    expect(text).not.toContain(TASK_TOKEN);
    expect(text).not.toContain("shh-very-secret");
    expect(text).toContain(REDACTED);
    expect(text).toContain("山田さんの基本給"); // not \\u-escaped
    expect(text).toContain('"inputTokens":1234'); // counts are not secrets
    const line = JSON.parse(out.lines.find((l) => l.includes("トークン更新"))!);
    expect(line.level).toBe("INFO");
  });

  it("an error object logged with a token in its message is redacted too", () => {
    const out = captureStdout();
    const log = createLogger("test");
    log.error("failed", { error: new Error(`invalid_auth for ${SLACK_TOKEN}`) });
    out.restore();
    const text = out.lines.join("");
    expect(text).toContain("invalid_auth for [REDACTED]");
    expect(text).not.toContain(SLACK_TOKEN);
  });

  it("redact() deep-copies with secrets replaced and leaves the input untouched", () => {
    const input = { a: { password: "p", list: [SLACK_TOKEN, "ok"] }, taskTokenPresent: true };
    const out = redact(input);
    expect(out).toEqual({ a: { password: REDACTED, list: [REDACTED, "ok"] }, taskTokenPresent: true });
    expect(input.a.password).toBe("p");
  });

  it("redactString catches Slack signatures and bearer headers", () => {
    expect(redactString(`v0=${"a".repeat(64)}`)).toBe(REDACTED);
    expect(redactString("Authorization: Bearer abc.def.ghijklmnop")).toBe(`Authorization: ${REDACTED}`);
  });
});

describe("what passed through unchanged before", () => {
  afterEach(() => vi.restoreAllMocks());
  const BEARER = "mcp1.eyJ0IjoiVDEiLCJlIjoiVDEtQzEtMS1lMSIsImV4cCI6MTcwMDAwMDAwMH0.3n0dWk5bTQ2kP3mS0lE7uQw8aWc1jHk2n9oPq4rStUv";

  it("an MCP bearer in free text", () => {
    expect(redactString(`session vault holds ${BEARER} for T1`)).toBe(`session vault holds ${REDACTED} for T1`);
  });

  it('a JSON string holding "access_token" (also escaped inside another JSON string)', () => {
    const body = JSON.stringify({ access_token: "f7a9c1e0", refresh_token: "r-2b8d", token_type: "bearer", expires_in: 21600 });
    expect(JSON.parse(redactString(body))).toEqual({ access_token: REDACTED, refresh_token: REDACTED, token_type: "bearer", expires_in: 21600 });
    expect(redactString(JSON.stringify({ body }))).not.toMatch(/f7a9c1e0|r-2b8d/);
  });

  it("a form body refresh_token=…&client_secret=… keeps its other fields", () => {
    expect(redactString("grant_type=refresh_token&refresh_token=r-2b8d%2Bx&client_id=123&client_secret=s3cr3t")).toBe(
      `grant_type=refresh_token&refresh_token=${REDACTED}&client_id=123&client_secret=${REDACTED}`,
    );
  });

  it("values under keys such as credential or token_value", () => {
    expect(redact({ credential: "c-1", token_value: "v-1", vault: { credentials: { static_bearer: { token: "t-1" } } } })).toEqual({
      credential: REDACTED,
      token_value: REDACTED,
      vault: { credentials: { static_bearer: { token: REDACTED } } },
    });
  });

  it("an error object carrying a form body is logged redacted", () => {
    const out = captureStdout();
    const err = Object.assign(new Error("freee token endpoint refused"), { body: "grant_type=refresh_token&refresh_token=r-2b8d&client_secret=s3cr3t" });
    createLogger("test").error("refresh failed", { error: new Error("wrapped", { cause: err }) });
    out.restore();
    const text = out.lines.join("");
    expect(text).toContain("grant_type=refresh_token");
    expect(text).not.toMatch(/r-2b8d|s3cr3t/);
  });
});

describe("redaction keeps what is not a secret", () => {
  it("error names, ids, ARNs, counts, dates, URLs and Japanese stay readable", () => {
    const text = [
      "ProvisionedThroughputExceededException: rate exceeded",
      "task T0001-C0001-1700000001.000100 version 2",
      "arn:aws:states:ap-northeast-1:123456789012:stateMachine:TaskPipeline-AbCdEf123456",
      "session sesn_011CZ8k2yJpQ4xWz7 request req_011CSHoEeqs5C35K2UUqR7Fy",
      "max_tokens: 4096 inputTokens=1234 taskTokenPresent: true token_type=bearer",
      "2026-01-02T03:04:05.678Z https://slack.com/api/chat.postMessage?channel=C1",
      "山田さんの基本給を30万円に変更",
      "task token no longer valid (InvalidToken)",
      "MCP bearer rejected: malformed",
    ].join("\n");
    expect(redactString(text)).toBe(text);
    expect(redact({ tokenUsage: { input_tokens: 10, output_tokens: 5 }, accessTokenExpiresAt: "2026-01-01T00:00:00Z", secretArn: "arn:aws:secretsmanager:x" })).toEqual({
      tokenUsage: { input_tokens: 10, output_tokens: 5 },
      accessTokenExpiresAt: "2026-01-01T00:00:00Z",
      secretArn: "arn:aws:secretsmanager:x",
    });
  });
});

describe("ordinary `word: word` text is kept; only secret-shaped values go", () => {
  it.each([
    "status: ok",
    "reason: timeout",
    "Status: OK, reason: Timeout",
    "plan: basic monthly",
    "reason: bearer missing",
    "auth mode: basic settings",
    "scheme=basic realm",
    "freee returned status: ok and reason: timeout",
    "tokenType: bearer",
  ])("%s", (text) => {
    expect(redactString(text)).toBe(text);
  });

  it.each([
    ["Authorization: Bearer abcdefgh", "Authorization: [REDACTED]"],
    ["authorization: bearer abcdefgh", "authorization: [REDACTED]"],
    ["header: Bearer abcdefghij", "header: [REDACTED]"],
    ["x: BEARER abcdefghij", "x: [REDACTED]"],
    ["x: Basic dXNlcjpwYXNz", "x: [REDACTED]"],
    ["retry with Bearer eyJhbGciOi.eyJzdWIiOi.c2ln now", "retry with Bearer [REDACTED] now"],
    ["sent 'bearer abcdefgh'", "sent '[REDACTED]'"],
    ["client_secret=s3cr3tvalue&grant_type=refresh_token", "client_secret=[REDACTED]&grant_type=refresh_token"],
    ['{"access_token":"abc.def-123"}', '{"access_token":"[REDACTED]"}'],
    ["token: xoxb-123456-abcdef", "token: [REDACTED]"],
  ])("%s", (text, redacted) => {
    expect(redactString(text)).toBe(redacted);
  });
});
