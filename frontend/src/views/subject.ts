// What the Try box and the Context card work on: a launch of a target, or of a plugin folder (a
// working copy in Local development), and the agent picker both offer for it.

import { type Attrs, h } from '../dom';
import { t } from '../i18n';

/** A target id, or a plugin folder. */
export type LaunchSubject = { target: string; dir?: undefined } | { dir: string; target?: undefined };

/** The backends; null labels are the agent's own, which t() names when the picker is built. */
const BACKENDS = [
  { value: '', label: null },
  { value: 'claude', label: 'Claude Code' }, // i18n-ignore: product name
  { value: 'pi', label: 'PI' }, // i18n-ignore: product name
];

/** A key that tells two subjects apart ("" for none). */
export function subjectKey(s: LaunchSubject | null): string {
  if (!s) return '';
  return s.dir !== undefined ? `dir:${s.dir}` : `target:${s.target}`;
}

/** The agent picker: the agent's own backend, Claude Code or PI. */
export function backendSelect(attrs: Attrs): HTMLSelectElement {
  return h(
    'select',
    attrs,
    ...BACKENDS.map((b) => h('option', { value: b.value }, b.label ?? t('settings.agent.own'))),
  );
}

/** Names the picker's first choice for subject: what "the agent's own" backend is there. */
export function labelOwnBackend(select: HTMLSelectElement, subject: LaunchSubject | null, ownBackend: string): void {
  const own = select.options[0];
  if (own)
    own.textContent = subject?.dir
      ? t('settings.agent.folder')
      : t('settings.agent.ownNamed', { backend: ownBackend || 'claude' });
}
