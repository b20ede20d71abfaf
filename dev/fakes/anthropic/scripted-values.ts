/**
 * What the scripted model reads from words: a month or a period (「今月」「先月」「来月」「12月」「2027年1月」
 * 「12月1日〜15日」), a person named with さん, an amount (「30万円」「250,000円」). The scripted L1 reads them from the
 * request, L2 writes them into its plan's 対象 line, L3 reads them back from the approved plan, and a rejection
 * reason changes only the ones it names — so what the plan says is what the steps do, and a reason the script
 * cannot read is said to be unread, never claimed as applied.
 */

export interface Period {
  /** YYYY-MM-DD */
  start: string;
  end: string;
}

const pad = (n: number) => String(n).padStart(2, "0");
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();
const monthOf = (y: number, m: number): Period => ({ start: `${y}-${pad(m)}-01`, end: `${y}-${pad(m)}-${pad(lastDay(y, m))}` });

function shift(today: string, offset: number): { year: number; month: number } {
  const [y, m] = today.split("-").map(Number) as [number, number];
  const index = y * 12 + (m - 1) + offset;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

/**
 * The month a text names, relative to today (a JST date, YYYY-MM-DD): 今月 / 先月 / 来月, 「2027年1月」, or 「1月」 —
 * the nearest such month ahead for a change (「1月から」 said in December is next year's) and behind for a read
 * (「12月の取引」 asked in January is last year's).
 */
export function monthIn(text: string, today: string, lean: "ahead" | "behind" = "ahead"): { year: number; month: number } | undefined {
  if (/今月/.test(text)) return shift(today, 0);
  if (/先月/.test(text)) return shift(today, -1);
  if (/来月/.test(text)) return shift(today, 1);
  const full = /(\d{4})\s*年\s*(\d{1,2})\s*月(?!\s*\d{1,2}\s*日)/.exec(text);
  if (full !== null && Number(full[2]) >= 1 && Number(full[2]) <= 12) return { year: Number(full[1]), month: Number(full[2]) };
  const bare = /(?<![\d年])(\d{1,2})\s*月(?!\s*\d{1,2}\s*日)/.exec(text);
  if (bare === null) return undefined;
  const month = Number(bare[1]);
  if (month < 1 || month > 12) return undefined;
  const now = shift(today, 0);
  if (lean === "ahead") return { year: month < now.month ? now.year + 1 : now.year, month };
  return { year: month > now.month ? now.year - 1 : now.year, month };
}

/** A period a text names: 「12月1日〜15日」 (days of a month), else a whole month, else undefined. */
export function periodIn(text: string, today: string): Period | undefined {
  const days = /(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*日\s*[〜~から\-－]+\s*(?:(\d{1,2})\s*月\s*)?(\d{1,2})\s*日/.exec(text);
  if (days !== null) {
    const month = Number(days[2]);
    const year = days[1] !== undefined ? Number(days[1]) : shift(today, 0).year;
    const endMonth = days[4] !== undefined ? Number(days[4]) : month;
    const start = `${year}-${pad(month)}-${pad(Number(days[3]))}`;
    const end = `${year}-${pad(endMonth)}-${pad(Number(days[5]))}`;
    return start <= end ? { start, end } : undefined;
  }
  const month = monthIn(text, today, "behind");
  return month === undefined ? undefined : monthOf(month.year, month.month);
}

/** The person a text names with さん / 様 (「来月から山田さんの…」 → 山田): the kanji / katakana run before it. */
export function nameIn(text: string): string | undefined {
  return /([一-龯々ァ-ヶー]+)\s*(?:さん|様)/.exec(text)?.[1];
}

/** An amount in yen: 「30万円」 → 300000, 「250,000円」 → 250000. */
export function amountIn(text: string): number | undefined {
  const man = /(\d+(?:\.\d+)?)\s*万円/.exec(text);
  const yen = /([\d,]+)\s*円/.exec(text);
  const amount = man ? Math.round(Number(man[1]) * 10_000) : yen ? Number(yen[1]!.replace(/,/g, "")) : undefined;
  return amount === undefined || !Number.isFinite(amount) ? undefined : amount;
}

/**
 * An amount as the request says one (「34万円」), else in yen (「340,500円」). The plan is posted in the thread, in a
 * public channel too: restating the requester's own words there discloses nothing they did not write, while the
 * bot's own figure (「340,000円」) stays on the masked Process card and in the private modal.
 */
export function yenWords(amount: number): string {
  return amount % 10_000 === 0 ? `${amount / 10_000}万円` : `${amount.toLocaleString("en-US")}円`;
}

/** The values of a pay change, as the plan's 対象 line carries them. */
export interface PayValues {
  name?: string;
  year: number;
  month: number;
  amount: number;
}

export function payTarget(v: PayValues): string {
  return `対象: 従業員 ${v.name ?? "（名前の指定なし）"}、${v.year}年${v.month}月支給分から、基本給 ${yenWords(v.amount)}（月給）`;
}

export function readPayTarget(plan: string): Partial<PayValues> {
  const line = /^対象: 従業員 (\S+?)、(\d{4})年(\d{1,2})月支給分から、基本給 ([\d,.]+万?円)/m.exec(plan);
  if (line === null) return {};
  const amount = amountIn(line[4]!);
  return { ...(line[1] === "（名前の指定なし）" ? {} : { name: line[1] }), year: Number(line[2]), month: Number(line[3]), ...(amount === undefined ? {} : { amount }) };
}

export function dealsTarget(period: Period | undefined, limit: number): string {
  return `対象: ${period === undefined ? "期間の指定なし" : `${period.start} 〜 ${period.end}`}の取引（最大 ${limit} 件）`;
}

export function readDealsTarget(plan: string): { period?: Period } | undefined {
  const line = /^対象: (?:(\d{4}-\d{2}-\d{2}) 〜 (\d{4}-\d{2}-\d{2})|期間の指定なし)の取引/m.exec(plan);
  if (line === null) return undefined;
  return line[1] === undefined ? {} : { period: { start: line[1], end: line[2]! } };
}

/** What a rejection reason says, in the values the script can read (none: it reads nothing it could apply). */
export interface ReasonReading {
  month?: { year: number; month: number };
  period?: Period;
  name?: string;
  amount?: number;
}

export function readReason(reason: string, today: string): ReasonReading {
  const [month, period, name, amount] = [monthIn(reason, today), periodIn(reason, today), nameIn(reason), amountIn(reason)];
  return { ...(month && { month }), ...(period && { period }), ...(name && { name }), ...(amount !== undefined && { amount }) };
}

/** A pay change with the reason's values applied, and each change in words (empty: the reason changed nothing). */
export function applyToPay(values: PayValues, reason: ReasonReading): { values: PayValues; applied: string[] } {
  const next = { ...values };
  const applied: string[] = [];
  if (reason.month !== undefined) {
    Object.assign(next, reason.month);
    applied.push(`対象年月を ${reason.month.year}年${reason.month.month}月 に`);
  }
  if (reason.name !== undefined) {
    next.name = reason.name;
    applied.push(`従業員を ${reason.name} に`);
  }
  if (reason.amount !== undefined) {
    next.amount = reason.amount;
    applied.push(`基本給を ${yenWords(reason.amount)} に`);
  }
  return { values: next, applied };
}

/** A deals read with the reason's period applied. */
export function applyToDeals(period: Period | undefined, reason: ReasonReading): { period: Period | undefined; applied: string[] } {
  if (reason.period === undefined) return { period, applied: [] };
  return { period: reason.period, applied: [`期間を ${reason.period.start} 〜 ${reason.period.end} に`] };
}
