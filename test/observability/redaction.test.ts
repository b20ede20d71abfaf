import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../lib/observability/logger";
import { redact, REDACTED, redactString } from "../../lib/observability/redact";

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

describe("secret redaction in logs (issue 2 item 6)", () => {
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
