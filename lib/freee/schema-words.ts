/**
 * freee's own words for its fields, read from the descriptions in its OpenAPI schemas: the label a person knows a
 * field by (「発生日 (yyyy-mm-dd)」 → 発生日) and what each enum value means (「収支区分 (収入: income, 支出: expense)」
 * → income 収入, expense 支出; 「給与方式 monthly: 月給, daily: 日給」 → monthly 月給). freee writes both orders
 * (「label: value」 and 「value: label」) and both colons; a value it does not explain is left as it is.
 */

/** The label part of a description: up to the first bracket, full-width space or explanation. */
export function labelOf(description: string | undefined): string | undefined {
  if (description === undefined) return undefined;
  const head = description.split(/\s*[(（]|　|\s+(?=[A-Za-z"])|で絞込|：|、|。/)[0]!.trim();
  return head === "" ? undefined : head;
}

/** value → label for the enum values a description explains. */
export function enumLabels(description: string | undefined, values: readonly unknown[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (description === undefined) return out;
  const known = new Set(values.map(String));
  // Pairs like 「収入: income」「monthly: 月給」「true: 使用する」 separated by commas, 、 or spaces.
  for (const m of description.matchAll(/([^\s,、:：()（）]+)\s*[:：]\s*([^\s,、:：()（）…]+)/g)) {
    const [a, b] = [m[1]!, m[2]!];
    if (known.has(b) && !known.has(a)) out[b] ??= a;
    else if (known.has(a) && !known.has(b)) out[a] ??= b;
  }
  return out;
}
