import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

/**
 * The browser tests' sandbox: `scripts/dev.ts` started as a process (its settings from an env file, as `.env`
 * would give them) and /sandbox opened in headless Chromium. One dev server and one browser per test file; a fresh
 * page per test. Needs Debian's chromium at /usr/bin/chromium (.ci/run installs it).
 */
export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

export interface BrowserSandboxOptions {
  /** The temporary directory's name prefix. */
  prefix: string;
  /** Settings written to the env file besides PORT and DATA_DIR. */
  settings: Record<string, string>;
  /** Write the dev stack's endpoints file (what `npm run report` reads) into the temporary directory. */
  devStackFile?: boolean;
}

export class BrowserSandbox {
  private readonly work: string;
  private dev: ChildProcess | undefined;
  private context: BrowserContext | undefined;
  private server: Promise<string> | undefined;

  constructor(private readonly options: BrowserSandboxOptions) {
    this.work = mkdtempSync(join(tmpdir(), options.prefix));
  }

  /** A new page on the sandbox (the server and the browser start on the first call), with the server's URL. */
  async open(): Promise<{ url: string; page: Page }> {
    this.server ??= this.startDevServer();
    const url = await this.server;
    if (this.context === undefined) {
      this.context = await chromium.launchPersistentContext(join(this.work, "profile"), { executablePath: CHROMIUM, headless: true, args: FLAGS });
      // Clicks and waits wait for the page, with no clock of Playwright's own (30 s): the test's limit
      // (vitest.config.ts) is the only one.
      this.context.setDefaultTimeout(0);
    }
    return { url, page: await this.context.newPage() };
  }

  async close(): Promise<void> {
    await this.context?.close();
    const dev = this.dev;
    if (dev?.pid !== undefined && dev.exitCode === null) {
      const exited = new Promise((resolve) => dev.once("exit", resolve));
      dev.kill("SIGTERM");
      await exited;
    }
    rmSync(this.work, { recursive: true, force: true });
  }

  /**
   * Start the dev server like `npm run dev` does, and resolve with its URL from the banner, or fail when it exits
   * first: a start several times slower on a loaded machine is still a start (the test's limit ends a hung one).
   */
  private startDevServer(): Promise<string> {
    const envFile = join(this.work, "dev.env");
    const settings = { PORT: "0", DATA_DIR: join(this.work, "data"), ...this.options.settings };
    writeFileSync(envFile, Object.entries(settings).map(([k, v]) => `${k}=${v}`).join("\n"));
    // Only what the server needs: no credentials from the developer's environment leak into the sandbox.
    const dev = spawn(process.execPath, ["--import", "tsx", "scripts/dev.ts"], {
      cwd: process.cwd(),
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? this.work,
        ENV_FILE: envFile,
        ...(this.options.devStackFile === true ? { DEV_STACK_FILE: join(this.work, "dev-stack.json") } : {}),
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.dev = dev;
    let output = "";
    return new Promise((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8");
        const m = /local stack on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (m) resolve(m[1] as string);
      };
      dev.stdout!.on("data", onData);
      dev.stderr!.on("data", onData);
      dev.once("error", reject);
      dev.once("exit", (code) => reject(new Error(`dev server exited with ${String(code)}:\n${output}`)));
    });
  }
}
