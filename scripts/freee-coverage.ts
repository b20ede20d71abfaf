import { writeFileSync } from "node:fs";
import { coverageCounts, coverageMarkdown } from "./freee-coverage-table";

/**
 * `npm run freee:coverage`: how many of freee's operations the app reaches, per API, as JSON
 * (`{ "accounting": { "covered": 151, "total": 151 }, … }`). With `--write`, regenerates docs/freee-operations.md.
 */
const write = process.argv.includes("--write");
if (write) writeFileSync(new URL("../docs/freee-operations.md", import.meta.url), coverageMarkdown());
process.stdout.write(`${JSON.stringify(coverageCounts(), null, 2)}\n`);
