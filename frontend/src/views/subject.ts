// What the Try box and the Context card work on: a launch of a target, or of a plugin folder (a
// working copy in Local development), and the agent picker both offer for it.

import { api } from '../bridge';
import { type Attrs, h } from '../dom';
import { t } from '../i18n';
import type { Backend } from '../types';

/** A target id, or a plugin folder. */
export type LaunchSubject = { target: string; dir?: undefined } | { dir: string; target?: undefined };

/** The backends; null labels are the agent's own, which t() names when the picker is built. */
const BACKENDS = [
  { value: '', label: null },
  { value: 'claude', label: 'Claude Code' }, // i18n-ignore: product name
  { value: 'pi', label: 'PI' }, // i18n-ignore: product name
  { value: 'codex', label: 'Codex' }, // i18n-ignore: product name
  { value: 'copilot', label: 'GitHub Copilot CLI' }, // i18n-ignore: product name
];

/** The service's word on which backends' clients are installed, asked once per page. */
let installed: Promise<Backend[]> | null = null;

/** Marks the backends whose client is not installed here: still listed (with how to install it), not offered. */
async function offerInstalled(select: HTMLSelectElement): Promise<void> {
  installed ??= api.backends();
  let list: Backend[];
  try {
    list = await installed;
  } catch {
    installed = null;
    return; // every backend stays offered; a launch says what is missing
  }
  for (const b of list) {
    const opt = [...select.options].find((o) => o.value === b.name);
    if (!opt || b.installed) continue;
    opt.disabled = true;
    opt.textContent = t('launch.backend.missing', { client: b.client || b.name });
    opt.title = t('launch.backend.missingTitle', { client: b.client || b.name, install: b.install ?? '' });
  }
}

/** A key that tells two subjects apart ("" for none). */
export function subjectKey(s: LaunchSubject | null): string {
  if (!s) return '';
  return s.dir !== undefined ? `dir:${s.dir}` : `target:${s.target}`;
}

/** The agent picker: the agent's own backend, or one of the backends whose client is installed. */
export function backendSelect(attrs: Attrs): HTMLSelectElement {
  const select = h(
    'select',
    attrs,
    ...BACKENDS.map((b) => h('option', { value: b.value }, b.label ?? t('settings.agent.own'))),
  );
  void offerInstalled(select);
  return select;
}

/** Names the picker's first choice for subject: what "the agent's own" backend is there. */
export function labelOwnBackend(select: HTMLSelectElement, subject: LaunchSubject | null, ownBackend: string): void {
  const own = select.options[0];
  if (own)
    own.textContent = subject?.dir
      ? t('settings.agent.folder')
      : t('settings.agent.ownNamed', { backend: ownBackend || 'claude' });
}
