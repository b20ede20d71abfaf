import { parseArgs } from "node:util";
import { UsageError } from "./cli";

export interface ChaosArgs {
  only: string | undefined;
  concurrency: number;
  /** The handlers' metric (EMF) and log lines on stdout too; without it they are off and the table stays readable. */
  verbose: boolean;
}

/**
 * The chaos command's flags, read before its harness loads: an unknown flag or a stray argument is refused
 * (ERR_PARSE_ARGS_*, explained by runCli) instead of running all the cells.
 */
export function parseChaosArgs(argv: readonly string[], defaultConcurrency: number): ChaosArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: { only: { type: "string" }, concurrency: { type: "string" }, verbose: { type: "boolean", default: false } },
  });
  const concurrency = values.concurrency === undefined ? defaultConcurrency : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency takes a positive integer (got ${JSON.stringify(values.concurrency)})`, "npm run chaos -- --concurrency 2");
  return { only: values.only, concurrency, verbose: values.verbose };
}
