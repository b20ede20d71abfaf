import { matchPath, pathPatterns, type PathPattern } from "../freee/path-patterns";
import generated from "./read-params.generated.json";
import { ownEntry } from "../core/own-entry";

/**
 * What the Process card needs to say a read in words: per freee GET operation (by its path template), each
 * parameter's Japanese label and enum meanings and freee's default page size — compiled from the vendored OpenAPI
 * by scripts/generate-read-params.ts, so the Slack and web Lambdas never load the OpenAPI or its validator.
 */

export interface ReadParameter {
  label?: string;
  enum?: Record<string, string>;
}

export interface ReadOperation {
  parameters: Record<string, ReadParameter>;
  defaultCount?: number;
}

const READS = generated as Record<string, ReadOperation>;

let matchers: PathPattern<string>[] | undefined;

/** One pattern per GET, built on the first lookup. */
const readMatchers = () => (matchers ??= pathPatterns(Object.keys(READS), (template) => template));

/** The GET operation a template names (`/api/1/deals`), undefined when freee has none. */
export function readByTemplate(template: string): (ReadOperation & { path: string }) | undefined {
  const read = ownEntry(READS, template);
  return read === undefined ? undefined : { ...read, path: template };
}

/** The GET operation a concrete path is (`/hr/api/v1/employees/2`), with the values of its path parameters. */
export function readByPath(path: string): { read: ReadOperation & { path: string }; pathParams: Record<string, string> } | undefined {
  const found = matchPath(readMatchers(), path);
  return found === undefined ? undefined : { read: { ...READS[found.item]!, path: found.item }, pathParams: found.pathParams };
}
