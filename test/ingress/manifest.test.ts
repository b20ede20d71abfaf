import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { BOT_SCOPES } from "../../lib/ingress/oauth-routes";

const manifest = readFileSync("slack/manifest.yaml", "utf8");

it("the manifest asks for exactly the scopes the install requests, and the events the ingress handles", () => {
  for (const scope of BOT_SCOPES) expect(manifest).toContain(`- ${scope}\n`);
  const scopeLines = manifest.split("bot:\n")[1]!.split("settings:")[0]!.match(/- [a-z:_.]+/g)!;
  expect(scopeLines.map((l) => l.slice(2)).sort()).toEqual([...BOT_SCOPES].sort());
  for (const event of ["app_mention", "message.channels", "message.im", "app_home_opened", "app_uninstalled", "tokens_revoked"]) {
    expect(manifest).toContain(`- ${event}\n`);
  }
  expect(manifest).toContain("home_tab_enabled: true");
  expect(manifest).toContain("socket_mode_enabled: false");
});

it("fill-manifest.mjs fills the URLs from cdk's outputs file", () => {
  const dir = mkdtempSync(join(tmpdir(), "manifest-"));
  const outputs = join(dir, "outputs.json");
  writeFileSync(
    outputs,
    JSON.stringify({ SlackMcpAgent: { SlackEventsUrl: "https://abc.lambda-url.ap-northeast-1.on.aws/slack/events", SlackOAuthRedirectUrl: "https://abc.lambda-url.ap-northeast-1.on.aws/slack/oauth_redirect" } }),
  );
  const filled = execFileSync("node", ["scripts/fill-manifest.mjs", "--outputs", outputs], { encoding: "utf8" });
  expect(filled).not.toContain("${");
  expect(filled).toContain('request_url: "https://abc.lambda-url.ap-northeast-1.on.aws/slack/events"');
  expect(filled).toContain('- "https://abc.lambda-url.ap-northeast-1.on.aws/slack/oauth_redirect"');
});

it("fill-manifest.mjs refuses a missing URL", () => {
  expect(() => execFileSync("node", ["scripts/fill-manifest.mjs"], { encoding: "utf8", env: { PATH: process.env.PATH }, stdio: "pipe" })).toThrow();
});
