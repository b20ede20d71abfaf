import generated from "./read-params.generated.json";

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

interface Matcher {
  template: string;
  names: string[];
  re: RegExp;
}

let matchers: Matcher[] | undefined;

/** One pattern per GET, built on the first lookup. Literal segments win: `/iv/invoices/templates` is not `/iv/invoices/{id}`. */
function readMatchers(): Matcher[] {
  matchers ??= Object.keys(READS)
    .map((template) => {
      const names: string[] = [];
      const source = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
        names.push(name);
        return "([^/]+)";
      });
      return { template, names, re: new RegExp(`^${source}$`) };
    })
    .sort((a, b) => a.names.length - b.names.length);
  return matchers;
}

/** The GET operation a template names (`/api/1/deals`), undefined when freee has none. */
export function readByTemplate(template: string): (ReadOperation & { path: string }) | undefined {
  const read = READS[template];
  return read === undefined ? undefined : { ...read, path: template };
}

/** The GET operation a concrete path is (`/hr/api/v1/employees/2`), with the values of its path parameters. */
export function readByPath(path: string): { read: ReadOperation & { path: string }; pathParams: Record<string, string> } | undefined {
  for (const m of readMatchers()) {
    const hit = m.re.exec(path);
    if (hit === null) continue;
    let pathParams: Record<string, string>;
    try {
      pathParams = Object.fromEntries(m.names.map((n, i) => [n, decodeURIComponent(hit[i + 1] as string)]));
    } catch (error) {
      // A malformed escape is not a path freee answers: the card falls back to the raw input.
      if (error instanceof URIError) return undefined;
      throw error;
    }
    return { read: { ...READS[m.template]!, path: m.template }, pathParams };
  }
  return undefined;
}
