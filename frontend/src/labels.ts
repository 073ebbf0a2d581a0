// The words of the badges that name a package's format, where it was found and an issue's
// severity, in the page's language. The values themselves (portable, cursor-cache, error) stay
// as the backend and the command line's --json give them, in data attributes and filters.

import { badge } from './dom';
import { type Key, t } from './i18n';

/** The formats and the sources a package can have, in the order the filters list them. */
export const FORMATS = ['portable', 'legacy', 'cursor', 'none'];
export const SOURCES = ['plugboard', 'cursor-local', 'cursor-cache', 'plugin-path'];
const SEVERITIES = ['error', 'warning', 'info'];

/** A format's word, or the value itself when the page has no word for it. */
export function formatLabel(f: string): string {
  return FORMATS.includes(f) ? t(`common.format.${f}` as Key) : f;
}

/** What a format is, for a badge's tooltip ('' when unknown). */
export function formatTitle(f: string): string {
  return FORMATS.includes(f) ? t(`common.format.${f}.title` as Key) : '';
}

/** A package's format as a badge: its word, what it is in the tooltip, its value in the class. */
export function formatBadge(f: string): HTMLSpanElement {
  return badge(formatLabel(f), `fmt-${f}`, formatTitle(f));
}

/** Where a package was found, in words. */
export function sourceLabel(s: string): string {
  return SOURCES.includes(s) ? t(`common.source.${s}` as Key) : s;
}

/** An issue's severity, in words. */
export function severityLabel(s: string): string {
  return SEVERITIES.includes(s) ? t(`common.severity.${s}` as Key) : s;
}

/**
 * What a client verdict was judged by (Verdict.judgedBy, "model of claude 2.1.328, claude
 * 2.1.328 installed"), in the page's language; another shape is shown as the backend wrote it.
 */
export function judgedByLabel(s: string): string {
  const m = /^model of (\S+)(?: (\S+))?, (\S+) (not installed|installed \(version not known\)|(\S+) installed)$/.exec(
    s,
  );
  if (!m) return s;
  const model = m[2] ? `${m[1]} ${m[2]}` : m[1];
  if (m[4] === 'not installed') return t('common.judgedBy.notInstalled', { model, client: m[3] });
  if (m[5] === undefined) return t('common.judgedBy.unknownVersion', { model, client: m[3] });
  return t('common.judgedBy.installed', { model, client: m[3], version: m[5] });
}
