/**
 * Dates, times, numbers, sizes, costs and token counts in the window's
 * language, through Intl (never toLocaleString() with the browser's default,
 * never hand-made "$" or "KB"). Each takes the language from i18n at the call,
 * so text drawn after a language switch follows it; a component that formats
 * should use useTranslation() so it is drawn again on a switch.
 */
import { i18n } from './i18n';
import { PSEUDO } from './i18n/languages';

/** The BCP 47 tag Intl gets: the window's language (the pseudo-locale formats as English). */
export function locale(): string {
  const lang = i18n.language || 'en';
  return lang === PSEUDO ? 'en' : lang;
}

const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>();
/** One formatter per language and options: Intl constructors are slow to make, quick to reuse. */
function cached<T extends Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>(kind: string, options: object, make: (lang: string) => T): T {
  const key = `${kind}|${locale()}|${JSON.stringify(options)}`;
  let f = cache.get(key) as T | undefined;
  if (!f) cache.set(key, (f = make(locale())));
  return f;
}

/** 12,345 / 12.345 / 12 345, as the language writes whole and decimal numbers. */
export function formatNumber(n: number, options: Intl.NumberFormatOptions = {}): string {
  return cached('n', options, (l) => new Intl.NumberFormat(l, options)).format(n);
}

/** Token counts: whole numbers grouped ("12,345"); `compact` says "200K" / "20万". */
export function formatTokens(n: number, compact = false): string {
  return formatNumber(n, compact ? { notation: 'compact', maximumFractionDigits: 1 } : { maximumFractionDigits: 0 });
}

/** A cost in US dollars (what the API bills): two decimals, four below a cent, the currency written as the language does. */
export function formatUSD(usd: number): string {
  return formatNumber(usd, { style: 'currency', currency: 'USD', minimumFractionDigits: usd !== 0 && Math.abs(usd) < 0.01 ? 4 : 2, maximumFractionDigits: usd !== 0 && Math.abs(usd) < 0.01 ? 4 : 2 });
}

const BYTE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;
/** A size in bytes with the largest fitting unit (1024-based, as file managers show): "512 bytes", "1.5 kB", "1,5 MB". */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return formatNumber(value, { style: 'unit', unit: BYTE_UNITS[unit], unitDisplay: unit === 0 ? 'long' : 'short', maximumFractionDigits: unit === 0 ? 0 : 1 });
}

/** A date and time (ms since the epoch): `style` short (a list row) or medium (a detail). */
export function formatDateTime(ms: number, style: 'short' | 'medium' = 'medium'): string {
  return cached('dt', { style }, (l) => new Intl.DateTimeFormat(l, { dateStyle: style, timeStyle: 'short' })).format(ms);
}

/** A date alone. */
export function formatDate(ms: number, options: Intl.DateTimeFormatOptions = { dateStyle: 'medium' }): string {
  return cached('d', options, (l) => new Intl.DateTimeFormat(l, options)).format(ms);
}

/** A time of day alone ("14:05" / "2:05 PM"). */
export function formatTime(ms: number): string {
  return cached('t', {}, (l) => new Intl.DateTimeFormat(l, { hour: 'numeric', minute: '2-digit' })).format(ms);
}

/** Whole days from `now`'s day to `ms`'s (negative: before), by the local calendar. */
function dayDelta(ms: number, now: number): number {
  const day = (t: number) => {
    const d = new Date(t);
    return Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) / 86_400_000;
  };
  return day(ms) - day(now);
}

/**
 * A relative day group for lists ("today", "yesterday", "3 days ago"; "今天", "昨天"), up to a week
 * back; older ones as the month ("March" this year, "March 2025" before).
 */
export function formatDayGroup(ms: number, now = Date.now()): string {
  const delta = dayDelta(ms, now);
  if (delta <= 0 && delta > -7) return cached('r', {}, (l) => new Intl.RelativeTimeFormat(l, { numeric: 'auto' })).format(delta, 'day');
  const sameYear = new Date(ms).getFullYear() === new Date(now).getFullYear();
  return formatDate(ms, sameYear ? { month: 'long' } : { month: 'long', year: 'numeric' });
}
