/**
 * A lookup table's entry for a key that comes from outside (freee's answers, a path, a query string), own entries
 * only: `constructor` or `toString` must not find Object's prototype and come back as a function.
 */
export function ownEntry<T>(table: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}
