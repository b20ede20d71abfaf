/** An instant as Japanese admins read it: `YYYY-MM-DD HH:MM` in JST (Japan has no daylight saving: UTC+9). */
export function jstMinutes(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return new Date(t + 9 * 3600_000).toISOString().slice(0, 16).replace("T", " ");
}
