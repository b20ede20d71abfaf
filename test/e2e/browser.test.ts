import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The "done when" of `npm run dev`, in a real browser: start `scripts/dev.ts` as a process (settings from an
 * env file, as `.env` would give them), open /sandbox in headless Chromium, post a request, reject the plan once
 * through the reason modal, approve both steps, and see 完了. Needs Debian's chromium at /usr/bin/chromium (.ci/run installs it).
 */
const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

const work = mkdtempSync(join(tmpdir(), "sandbox-browser-"));
let dev: ChildProcess | undefined;
let context: BrowserContext | undefined;

afterAll(async () => {
  await context?.close();
  if (dev?.pid !== undefined && dev.exitCode === null) {
    const exited = new Promise((resolve) => dev!.once("exit", resolve));
    dev.kill("SIGTERM");
    await exited;
  }
  rmSync(work, { recursive: true, force: true });
});

/** Start the dev server like `npm run dev` does, and resolve with its URL from the banner. */
function startDevServer(): Promise<string> {
  const envFile = join(work, "dev.env");
  writeFileSync(envFile, [`PORT=0`, `DATA_DIR=${join(work, "data")}`, `SANDBOX_STEP_DELAY_MS=50`, `LOCAL_WAIT_MS=100`, `SANDBOX_SLACK_RATE_WINDOW_MS=2000`, `LOG_LEVEL=WARN`].join("\n"));
  // Only what the server needs: no credentials from the developer's environment leak into the sandbox.
  dev = spawn(process.execPath, ["--import", "tsx", "scripts/dev.ts"], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? work, ENV_FILE: envFile, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dev server did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const m = /local stack on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    };
    dev!.stdout!.on("data", onData);
    dev!.stderr!.on("data", onData);
    dev!.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`dev server exited with ${String(code)}:\n${output}`));
    });
  });
}

describe("sandbox page in headless Chromium", () => {
  if (!hasChromium) console.warn(`browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium; .ci/run does it)`);

  it.skipIf(!hasChromium)(`npm run dev → /sandbox: post a message, reject with a reason in the modal, approve both steps, see 完了${hasChromium ? "" : ` (skipped: ${CHROMIUM} missing)`}`, async () => {
    const url = await startDevServer();
    context = await chromium.launchPersistentContext(join(work, "profile"), { executablePath: CHROMIUM, headless: true, args: FLAGS });
    const page = await context.newPage();
    await page.goto(`${url}/sandbox`);
    await expect.poll(() => page.locator("#labels").innerText()).toContain("モデル: スクリプト");

    await page.fill("#text", "来月から山田さんの基本給を30万円に変更して");
    await page.click("#composer button[type=submit]");

    const thread = page.locator("#thread-messages");
    // 却下 opens the reason modal the ingress asked for (views.open); an empty reason is refused inside it.
    await thread.locator("button[data-action*='prompt']", { hasText: "却下" }).first().click({ timeout: 30_000 });
    const modal = page.locator("#backdrop.open #modal");
    await modal.locator("#modal-submit").click({ timeout: 15_000 });
    await expect.poll(() => modal.locator(".error").first().innerText()).toBe("却下理由を入力してください。");
    await modal.locator("textarea").fill("適用月を明記して");
    await modal.locator("#modal-submit").click();
    await expect.poll(() => page.locator("#backdrop.open").count()).toBe(0);
    await expect.poll(() => thread.innerText(), { timeout: 30_000 }).toContain("適用月を明記して");
    await thread.locator("button[data-action*='prompt']", { hasText: "承認" }).first().click({ timeout: 30_000 });
    await thread.locator("button[data-action*='process']", { hasText: "承認" }).first().click({ timeout: 30_000 });
    await expect.poll(() => thread.innerText(), { timeout: 30_000 }).toContain("完了");
    expect(await thread.innerText()).toContain("実行 #1");
  }, 120_000);
});
