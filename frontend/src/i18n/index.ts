// The page's languages: English and Simplified Chinese. Every string a person sees comes from a
// message catalog (messages/*.ts, one file per area of the page, English and Chinese side by side)
// through t(); numbers and dates go through the Intl formatters of the chosen language. The
// language follows the system (navigator.languages: WebKitGTK and Chromium report the locale the
// program was started in) unless Settings stored a choice in localStorage. Issue messages from the
// backend stay in English: their codes are stable and documented, and authors search for them.
//
// A message is a string with {name} placeholders, or, where it counts something, the plural forms
// of Intl.PluralRules ({one, other}; Chinese has only other) selected by the parameter n. Number
// parameters are formatted for the language ("1,234").

import { catalogs, type Key } from './catalog';

export type { Key } from './catalog';
export type Lang = 'en' | 'zh-CN';
export type Choice = Lang | 'system';
export type Msg = string | { readonly one?: string; readonly other: string };
export type Params = Record<string, string | number>;

export const LANGS: readonly Lang[] = ['en', 'zh-CN'];
const STORE_KEY = 'plugboard.lang';

/** The language the system asks for: Chinese for any zh locale, English otherwise. */
export function systemLang(languages: readonly string[] = navigatorLanguages()): Lang {
  for (const l of languages) {
    const tag = l.toLowerCase();
    if (tag === 'zh' || tag.startsWith('zh-') || tag.startsWith('zh_')) return 'zh-CN';
    if (tag === 'en' || tag.startsWith('en-') || tag.startsWith('en_')) return 'en';
  }
  return 'en';
}

function navigatorLanguages(): readonly string[] {
  try {
    return navigator.languages?.length ? navigator.languages : [navigator.language];
  } catch {
    return [];
  }
}

/** The stored choice: a language, or 'system' when none is stored. */
export function storedChoice(): Choice {
  try {
    const v = localStorage.getItem(STORE_KEY);
    return v === 'en' || v === 'zh-CN' ? v : 'system';
  } catch {
    return 'system';
  }
}

let lang: Lang = resolve(storedChoice());

function resolve(c: Choice): Lang {
  return c === 'system' ? systemLang() : c;
}

/**
 * Stores the choice (or forgets it, for 'system') and makes it the page's language. The caller
 * re-renders; the page's views are built once, so main.ts reloads the page for a change.
 */
export function setChoice(c: Choice): Lang {
  try {
    if (c === 'system') localStorage.removeItem(STORE_KEY);
    else localStorage.setItem(STORE_KEY, c);
  } catch {
    /* not persisted; applied for this page only */
  }
  lang = resolve(c);
  applyDocumentLang();
  return lang;
}

/** The language the page speaks now. */
export function currentLang(): Lang {
  return lang;
}

/** <html lang> follows the language, so fonts and screen readers pick the right one. */
export function applyDocumentLang(): void {
  try {
    document.documentElement.lang = lang;
  } catch {
    /* no document (unit tests) */
  }
}

const pluralRules = new Map<Lang, Intl.PluralRules>();
const numberFormats = new Map<Lang, Intl.NumberFormat>();

function rules(l: Lang): Intl.PluralRules {
  let r = pluralRules.get(l);
  if (!r) pluralRules.set(l, (r = new Intl.PluralRules(l)));
  return r;
}

// Both languages write an integer as its digits in groups of three joined by commas ("-5",
// "12,345") and have the same plural rule for integers (English: one for 1 and -1; Chinese: other),
// so integers skip Intl: the first Intl.NumberFormat or PluralRules of a page loads locale data,
// 50-70 ms here, and the first screen of a large home (a count of 1,000 plugins, 10,000 skills)
// would wait for it.
const plain = (n: number) => Number.isSafeInteger(n) && !Object.is(n, -0);

function grouped(n: number): string {
  const digits = String(Math.abs(n));
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3);
  return n < 0 ? '-' + out : out;
}

function pluralForm(l: Lang, n: number): Intl.LDMLPluralRule {
  if (Number.isInteger(n)) return l === 'en' && Math.abs(n) === 1 ? 'one' : 'other';
  return rules(l).select(n);
}

/** A number for the current language: 12345 -> "12,345". */
export function fmtNumber(n: number, opts?: Intl.NumberFormatOptions): string {
  if (!opts && plain(n)) return grouped(n);
  if (opts) return new Intl.NumberFormat(lang, opts).format(n);
  let f = numberFormats.get(lang);
  if (!f) numberFormats.set(lang, (f = new Intl.NumberFormat(lang)));
  return f.format(n);
}

function toDate(d: Date | string | number): Date | null {
  const x = d instanceof Date ? d : new Date(d);
  return Number.isNaN(x.getTime()) ? null : x;
}

/** A date and time for the current language; a value that is not a date is shown as given. */
export function fmtDateTime(d: Date | string | number, opts?: Intl.DateTimeFormatOptions): string {
  const x = toDate(d);
  return x ? x.toLocaleString(lang, opts) : String(d);
}

/** A date for the current language (default: day, short month, year). */
export function fmtDate(d: Date | string | number, opts?: Intl.DateTimeFormatOptions): string {
  const x = toDate(d);
  return x ? x.toLocaleDateString(lang, opts ?? { day: 'numeric', month: 'short', year: 'numeric' }) : String(d);
}

/** A time of day for the current language (default: hours, minutes, seconds). */
export function fmtTime(d: Date | string | number, opts?: Intl.DateTimeFormatOptions): string {
  const x = toDate(d);
  return x ? x.toLocaleTimeString(lang, opts ?? { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : String(d);
}

/** The message for key in the current language, with {name} placeholders filled from params. */
export function t(key: Key, params?: Params): string {
  return format(lang, key, params);
}

/** The message for key in language l (t() for a language that is not the page's). */
export function format(l: Lang, key: Key, params?: Params): string {
  const m: Msg | undefined = catalogs[l][key] ?? catalogs.en[key];
  if (m === undefined) return key;
  let s: string;
  if (typeof m === 'string') s = m;
  else {
    const n = Number(params?.n ?? 0);
    const form = pluralForm(l, n);
    s = (form === 'one' ? m.one : undefined) ?? m.other;
  }
  if (!params) return s;
  return s.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const v = params[name];
    if (v === undefined) return whole;
    return typeof v === 'number' ? numberIn(l, v) : v;
  });
}

function numberIn(l: Lang, n: number): string {
  if (l === lang || plain(n)) return fmtNumber(n);
  return new Intl.NumberFormat(l).format(n);
}

/** The placeholders a message uses, in order of first use: for the catalog check. */
export function placeholders(m: Msg): string[] {
  const texts = typeof m === 'string' ? [m] : [m.one ?? '', m.other];
  const out = new Set<string>();
  for (const s of texts) for (const x of s.matchAll(/\{(\w+)\}/g)) out.add(x[1]);
  return [...out].sort();
}

applyDocumentLang();
