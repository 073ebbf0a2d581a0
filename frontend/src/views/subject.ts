// What the Try box and the Context card work on: a launch of a target, or of a plugin folder (a
// working copy in Local development), and the agent picker both offer for it.

import { type Attrs, h } from '../dom';

/** A target id, or a plugin folder. */
export type LaunchSubject = { target: string; dir?: undefined } | { dir: string; target?: undefined };

const BACKENDS = [
  { value: '', label: "Agent's own" },
  { value: 'claude', label: 'Claude Code' },
  { value: 'pi', label: 'PI' },
];

/** A key that tells two subjects apart ("" for none). */
export function subjectKey(s: LaunchSubject | null): string {
  if (!s) return '';
  return s.dir !== undefined ? `dir:${s.dir}` : `target:${s.target}`;
}

/** The agent picker: the agent's own backend, Claude Code or PI. */
export function backendSelect(attrs: Attrs): HTMLSelectElement {
  return h('select', attrs, ...BACKENDS.map((b) => h('option', { value: b.value }, b.label)));
}

/** Names the picker's first choice for subject: what "the agent's own" backend is there. */
export function labelOwnBackend(select: HTMLSelectElement, subject: LaunchSubject | null, ownBackend: string): void {
  const own = select.options[0];
  if (own)
    own.textContent = subject?.dir ? 'Claude Code (a folder has no agent)' : `Agent's own (${ownBackend || 'claude'})`;
}
