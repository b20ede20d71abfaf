import type { BuildOptions } from "esbuild";
import { LogLevel, OutputFormat, type BundlingOptions } from "aws-cdk-lib/aws-lambda-nodejs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The one definition of how every Lambda of this app is bundled. The stack (NodejsFunction), the bench and the
 * bundle tests all derive their esbuild options from here, so what is measured and tested is what ships.
 *
 * `keepNames` is off: Step Functions matches `ErrorEquals` against the `name` of the error a Lambda throws, and every
 * error the state machines match spells that name as a string literal (lib/core/errors/taxonomy.ts; the AWS SDK's
 * `name = "..."`, Anthropic's and smithy's errors likewise), so the minifier renaming classes cannot change it.
 * Keeping names costs ~55 KiB of `__name(...)` calls per bundle and ~11 % of its cold import.
 * test/bundle/error-table.bundle.test.ts proves the names on the shipped bundles, classes renamed.
 */
export interface LambdaBundling {
  target: string;
  format: "esm";
  minify: boolean;
  keepNames: boolean;
  sourcemap: boolean;
  sourcesContent: boolean;
  mainFields: readonly string[];
  /** CommonJS dependencies call require(); the ESM bundle gets one. */
  banner: string;
  /** Nothing external: the AWS SDK versions we test with are bundled, not taken from the runtime. */
  external: readonly string[];
  /** Modules replaced at bundle time (package → replacement path), e.g. code a Lambda never runs. */
  alias: Readonly<Record<string, string>>;
  /**
   * "utf8" writes non-ASCII text as it is: esbuild's default escapes it, and a Japanese character then costs 6 bytes
   * (`\uXXXX`) instead of 3 — the messages, the prompts and the freee schemas' descriptions (~50 KiB a bundle).
   */
  charset: "utf8" | "ascii";
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The AWS SDK's credential chain, reduced to what Lambda gives (lambdas/ingress/env-credentials.ts): every Lambda
 * of this app gets its role's credentials in the environment, so the SSO, INI, process, web identity and instance
 * metadata providers and their nested STS / SSO clients (~140 KiB) never run. test/bundle/env-credentials.test.ts.
 */
const ENV_CREDENTIALS = { "@aws-sdk/credential-provider-node": join(ROOT, "lambdas", "ingress", "env-credentials.ts") };

export const LAMBDA_BUNDLING: LambdaBundling = {
  target: "node22",
  format: "esm",
  minify: true,
  keepNames: false,
  sourcemap: true,
  sourcesContent: false,
  mainFields: ["module", "main"],
  banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  external: [],
  alias: { ...ENV_CREDENTIALS },
  charset: "utf8",
};

/**
 * What NodejsFunction does when not told otherwise (ASCII escapes, the SDK's whole credential chain): the bench's
 * naive baseline handler is bundled so, as a tutorial app would ship it. No Lambda of this app uses it.
 */
export const PLAIN_BUNDLING: LambdaBundling = { ...LAMBDA_BUNDLING, alias: {}, charset: "ascii" };

/**
 * Bolt's `index` requires its Express, HTTP and Socket Mode receivers at load, and with them express (+ body-parser,
 * iconv-lite, mime-db), undici (through @slack/socket-mode), raw-body and path-to-regexp: about 1.4 MB that no
 * Lambda of this app runs (the Slack Lambda uses AwsLambdaReceiver; the web Lambda only Bolt's logger levels).
 * They are replaced by an empty module (lambdas/ingress/absent-module.cjs) in those two bundles only.
 */
export const INGRESS_ABSENT_MODULE = join(ROOT, "lambdas", "ingress", "absent-module.cjs");
const absent = (...names: string[]) => Object.fromEntries(names.map((name) => [name, INGRESS_ABSENT_MODULE]));
const BOLT_RECEIVERS = ["express", "@slack/socket-mode", "raw-body", "path-to-regexp"];

/**
 * The Slack Lambda (lambdas/ingress). It also leaves out @slack/oauth (with jsonwebtoken, semver): the install
 * flow is the web Lambda's, and Bolt only re-exports it. test/bundle/ingress.bundle.test.ts serves every route
 * from the two bundles built so.
 */
export const INGRESS_BUNDLING: LambdaBundling = { ...LAMBDA_BUNDLING, alias: { ...absent(...BOLT_RECEIVERS, "@slack/oauth"), ...ENV_CREDENTIALS } };

/** The web Lambda (lambdas/web): Slack install and freee connect pages, which do use @slack/oauth. */
export const WEB_BUNDLING: LambdaBundling = { ...LAMBDA_BUNDLING, alias: { ...absent(...BOLT_RECEIVERS), ...ENV_CREDENTIALS } };

/** The NodejsFunction `bundling` props for these options. */
export function nodejsBundlingOptions(b: LambdaBundling = LAMBDA_BUNDLING): BundlingOptions {
  const aliasArgs = Object.fromEntries(Object.entries(b.alias).map(([from, to]) => [`--alias:${from}`, to]));
  // NodejsFunction declares a `charset` prop but does not pass it to esbuild (synth output stayed escaped): an argument.
  const esbuildArgs = { ...aliasArgs, ...(b.charset === "utf8" ? { "--charset": "utf8" } : {}) };
  return {
    format: b.format === "esm" ? OutputFormat.ESM : OutputFormat.CJS,
    target: b.target,
    minify: b.minify,
    keepNames: b.keepNames,
    sourceMap: b.sourcemap,
    sourcesContent: b.sourcesContent,
    externalModules: [...b.external],
    mainFields: [...b.mainFields],
    banner: b.banner,
    // esbuild's per-bundle size listing made `cdk synth --quiet` print five lines per Lambda; warnings still show.
    logLevel: LogLevel.WARNING,
    ...(Object.keys(esbuildArgs).length === 0 ? {} : { esbuildArgs }),
  };
}

/** The same options for esbuild's JS API (bench, bundle tests): what `cdk synth` runs, minus the zip. */
export function esbuildOptions(b: LambdaBundling = LAMBDA_BUNDLING): BuildOptions {
  return {
    bundle: true,
    platform: "node",
    target: b.target,
    format: b.format,
    minify: b.minify,
    keepNames: b.keepNames,
    sourcemap: b.sourcemap,
    sourcesContent: b.sourcesContent,
    external: [...b.external],
    mainFields: [...b.mainFields],
    banner: { js: b.banner },
    alias: { ...b.alias },
    charset: b.charset,
    logLevel: "error",
  };
}
