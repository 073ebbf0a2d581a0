// The detail of one skill of the precedence view, and the overview shown when none is selected.

import { badge, h, tilde } from './dom';
import { issueGroups } from './render';
import type { CatalogIndex } from './search';
import type { SkillEntry } from './types';

export interface SkillDetailDeps {
  ix: CatalogIndex;
  enabled: boolean;
  setEnabled: (on: boolean) => void;
  showPlugin: (id: string) => void;
}

const LAYERS: Array<[string, string]> = [
  ['user', '~/.cursor, ~/.agents, ~/.claude, ~/.codex skills (trusted)'],
  ['plugin', 'skills of Plugboard\u2019s managed plugins (untrusted)'],
  ['project', 'skills of the open workspace (untrusted)'],
  ['cursor-plugin, plugin-path', 'Cursor plugins and skillPluginPaths (untrusted)'],
  ['builtin', 'skills shipped with Plugboard (trusted)'],
];

export function skillsOverview(ix: CatalogIndex): HTMLElement {
  const sum = ix.doc.summary;
  return h(
    'article',
    { class: 'detail-body' },
    h(
      'header',
      { class: 'detail-head' },
      h('h2', { tabindex: -1 }, 'Skills'),
      h('p', { class: 'lead' }, `${sum.activeSkills} active of ${sum.skills}; ${sum.shadowedSkills} shadowed.`),
    ),
    h(
      'section',
      { class: 'card' },
      h('h3', null, 'Precedence'),
      h('ol', { class: 'layers' }, ...LAYERS.map(([k, v]) => h('li', null, h('strong', null, k), ` ${v}`))),
      h('p', { class: 'muted small' }, 'The first valid skill of a name wins; the others are listed as shadowed.'),
    ),
  );
}

function dd(label: string, v: Node | string | null | undefined): HTMLElement[] {
  return v === null || v === undefined || v === '' ? [] : [h('dt', null, label), h('dd', null, v)];
}

function pathsSection(s: SkillEntry): HTMLElement | null {
  if (!s.paths?.length) return null;
  return h(
    'section',
    { class: 'card', 'data-testid': 'skill-paths' },
    h('h3', null, 'Extra paths'),
    h(
      'ul',
      { class: 'plain' },
      ...s.paths.map((p) =>
        h(
          'li',
          null,
          h('code', null, p.entry),
          ' ',
          p.accepted ? badge('accepted', 'ok') : badge('refused', 'error'),
          p.reason ? h('span', { class: 'muted small' }, ` ${p.reason}`) : null,
        ),
      ),
    ),
  );
}

export function skillDetail(s: SkillEntry, deps: SkillDetailDeps): HTMLElement {
  const { ix, enabled } = deps;
  const home = ix.doc.home;
  const toggle = h('input', {
    type: 'checkbox',
    role: 'switch',
    checked: enabled,
    'data-testid': 'skill-detail-enabled',
    'aria-label': `Enable ${s.id}`,
  });
  toggle.addEventListener('change', () => deps.setEnabled(toggle.checked));
  const shadowed = (s.shadows ?? []).map((p) => {
    const e = ix.skillByPath.get(p);
    return h(
      'li',
      { class: 'mono small', title: p },
      tilde(p, home),
      e ? h('span', { class: 'muted' }, ` (${e.source})`) : null,
    );
  });
  const plugin = s.plugin
    ? h('button', { type: 'button', class: 'link', onclick: () => deps.showPlugin(s.plugin!) }, s.plugin)
    : null;
  return h(
    'article',
    { class: 'detail-body', 'data-id': s.id },
    h(
      'header',
      { class: 'detail-head' },
      h('h2', { tabindex: -1 }, s.id),
      h(
        'div',
        { class: 'detail-badges' },
        badge(s.source, 'neutral'),
        s.trusted ? badge('trusted', 'ok') : badge('untrusted', 'warning'),
        s.valid ? badge('valid', 'ok') : badge('invalid', 'error'),
        s.active ? badge('active', 'ok') : badge(s.shadowedBy ? 'shadowed' : 'inactive', 'neutral'),
      ),
      s.description ? h('p', { class: 'lead' }, s.description) : null,
    ),
    h(
      'section',
      { class: 'card' },
      h(
        'dl',
        { class: 'meta' },
        ...dd('Name', s.name),
        ...dd('Layer', String(s.layer)),
        ...dd('Plugin', plugin),
        ...dd('Path', h('span', { class: 'mono wrap', title: s.path }, tilde(s.path, home))),
        ...dd('Model', s.modelInvocable ? 'the model may invoke it' : 'user-invoked only'),
        ...dd('Enabled', h('label', { class: 'check' }, toggle, enabled ? ' enabled' : ' disabled')),
        ...dd(
          'Shadowed by',
          s.shadowedBy
            ? h('span', { class: 'mono wrap' }, `${tilde(s.shadowedBy, home)} in ${(s.shadowedIn ?? []).join(', ')}`)
            : null,
        ),
      ),
      shadowed.length
        ? h('div', null, h('h4', null, `Shadows ${shadowed.length}`), h('ul', { class: 'plain' }, ...shadowed))
        : null,
    ),
    pathsSection(s),
    s.issues?.length ? h('section', { class: 'card' }, h('h3', null, 'Issues'), issueGroups(s.issues)) : null,
  );
}
