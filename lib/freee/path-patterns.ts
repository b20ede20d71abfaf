/**
 * Matching a concrete freee path (`/hr/api/v1/employees/2`) to the template it instantiates
 * (`/hr/api/v1/employees/{id}`). One definition for the validator's 327 operations and the preview's GETs, so the
 * two never disagree on which operation a path is.
 */

export interface PathPattern<T> {
  item: T;
  names: string[];
  re: RegExp;
}

/**
 * The patterns of these templates, most specific first: segment by segment, a literal wins over a parameter, so
 * `/iv/invoices/templates` is never `/iv/invoices/{id}` and `/a/b/{x}` is tried before `/a/{y}/c`.
 */
export function pathPatterns<T>(items: readonly T[], templateOf: (item: T) => string): PathPattern<T>[] {
  return items
    .map((item) => {
      const template = templateOf(item);
      const names: string[] = [];
      const source = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
        names.push(name);
        return "([^/]+)";
      });
      return { item, names, re: new RegExp(`^${source}$`), shape: template.split("/").map((s) => s.startsWith("{")) };
    })
    .sort((a, b) => compareShapes(a.shape, b.shape))
    .map(({ item, names, re }) => ({ item, names, re }));
}

/**
 * Negative when `a` is more specific: its first differing segment is literal where `b`'s is a parameter. A total
 * order (lexicographic, shorter first on a common prefix), as sort needs; paths of different lengths never both match.
 */
function compareShapes(a: boolean[], b: boolean[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i] ? 1 : -1;
  }
  return a.length - b.length;
}

/**
 * The first pattern this path matches, with its decoded parameters; undefined when none does or when a parameter
 * is not valid percent-encoding (`%E0%A4%A`): freee answers no such path, and a URIError must not escape as a crash.
 */
export function matchPath<T>(patterns: readonly PathPattern<T>[], path: string, accept: (item: T) => boolean = () => true): { item: T; pathParams: Record<string, string> } | undefined {
  for (const p of patterns) {
    if (!accept(p.item)) continue;
    const hit = p.re.exec(path);
    if (hit === null) continue;
    try {
      return { item: p.item, pathParams: Object.fromEntries(p.names.map((n, i) => [n, decodeURIComponent(hit[i + 1] as string)])) };
    } catch (error) {
      if (error instanceof URIError) return undefined;
      throw error;
    }
  }
  return undefined;
}
