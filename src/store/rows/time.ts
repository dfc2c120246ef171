// Time columns: milliseconds since the epoch, a number in SQLite and a bigint string in PostgreSQL.
export type Millis = number | string;

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
const DAY_MS = 86_400_000;
/** 0001-01-01 and 10000-01-01: inside, `toISOString` gives `YYYY-MM-DDTHH:MM:SS.mmmZ`. */
const FIRST_MS = -62_135_596_800_000;
const END_MS = 253_402_300_800_000;
let cachedDay = NaN;
let cachedDayPrefix = '';
let lastMs = NaN;
let lastIso = '';

/**
 * `new Date(ms).toISOString()`, without a Date for every call: a page of records has two times each, and
 * records imported together share them. The date part is made once per day, the time part from integers.
 */
export function isoTime(ms: Millis): string {
  const time = Number(ms);
  if (time === lastMs) return lastIso;
  if (!Number.isInteger(time) || time < FIRST_MS || time >= END_MS) return new Date(time).toISOString();
  const day = Math.floor(time / DAY_MS);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedDayPrefix = new Date(day * DAY_MS).toISOString().slice(0, -13);
  }
  let rest = time - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const iso = `${cachedDayPrefix}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[rest - seconds * 1000]}Z`;
  lastMs = time;
  lastIso = iso;
  return iso;
}

export function isoTimeOrNull(ms: Millis | null): string | null {
  return ms === null ? null : isoTime(ms);
}
