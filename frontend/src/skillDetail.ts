// The detail of one skill of the precedence view, and the overview shown when none is selected.

import type { ClientAnswers } from './clientAnswers';
import { badge, h, tilde } from './dom';
import { fmtNumber, type Key, t } from './i18n';
import { answerNote } from './pluginDetail';
import { issueGroups } from './render';
import type { CatalogIndex } from './search';
import type { SkillEntry } from './types';

export interface SkillDetailDeps {
  ix: CatalogIndex;
  enabled: boolean;
  setEnabled: (on: boolean) => void;
  showPlugin: (id: string) => void;
  answers?: ClientAnswers;
}

// the clients that are asked about the folders of the user's skill folders (Go: clientask.AskSkills)
const ASKED_OF_SKILLS = ['claude', 'codex'] as const;

/** What each installed client said of a standalone skill's folder, when one has answered. */
function askedSection(s: SkillEntry, answers: ClientAnswers | undefined): HTMLElement | null {
  if (s.plugin || !answers) return null;
  const notes = ASKED_OF_SKILLS.flatMap((c) => {
    const r = answers.answerForSkill(c, s.path);
    return r ? [h('li', null, answerNote(c, r))] : [];
  });
  if (!notes.length) return null;
  return h(
    'section',
    { class: 'card', 'data-testid': 'skill-clients-asked' },
    h('h3', null, t('skills.detail.clients')),
    h('ul', { class: 'plain' }, ...notes),
  );
}

// each layer's sources (as the catalog names them) and the message that describes it
const LAYERS: Array<[string, Key]> = [
  ['user', 'skills.overview.layer.user'],
  ['plugin', 'skills.overview.layer.plugin'],
  ['project', 'skills.overview.layer.project'],
  ['cursor-plugin, plugin-path', 'skills.overview.layer.pluginPath'], // i18n-ignore: source names
  ['builtin', 'skills.overview.layer.builtin'],
];

export function skillsOverview(ix: CatalogIndex): HTMLElement {
  const sum = ix.doc.summary;
  return h(
    'article',
    { class: 'detail-body' },
    h(
      'header',
      { class: 'detail-head' },
      h('h2', { tabindex: -1 }, t('skills.overview.title')),
      h(
        'p',
        { class: 'lead' },
        t('skills.overview.lead', { active: sum.activeSkills, total: sum.skills, shadowed: sum.shadowedSkills }),
      ),
    ),
    h(
      'section',
      { class: 'card' },
      h('h3', null, t('skills.overview.precedence')),
      h('ol', { class: 'layers' }, ...LAYERS.map(([k, v]) => h('li', null, h('strong', null, k), ' ', t(v)))),
      h('p', { class: 'muted small' }, t('skills.overview.firstWins')),
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
    h('h3', null, t('skills.detail.extraPaths')),
    h(
      'ul',
      { class: 'plain' },
      ...s.paths.map((p) =>
        h(
          'li',
          null,
          h('code', null, p.entry),
          ' ',
          p.accepted ? badge(t('skills.detail.accepted'), 'ok') : badge(t('skills.detail.refused'), 'error'),
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
    'aria-label': t('skills.enable', { id: s.id }),
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
        s.trusted ? badge(t('plugins.state.trusted'), 'ok') : badge(t('plugins.state.untrusted'), 'warning'),
        s.valid ? badge(t('plugins.state.valid'), 'ok') : badge(t('plugins.state.invalid'), 'error'),
        s.active
          ? badge(t('plugins.state.active'), 'ok')
          : badge(t(s.shadowedBy ? 'plugins.state.shadowed' : 'plugins.state.inactive'), 'neutral'),
      ),
      s.description ? h('p', { class: 'lead' }, s.description) : null,
    ),
    h(
      'section',
      { class: 'card' },
      h(
        'dl',
        { class: 'meta' },
        ...dd(t('skills.detail.meta.name'), s.name),
        ...dd(t('skills.detail.meta.layer'), fmtNumber(s.layer)),
        ...dd(t('skills.detail.meta.plugin'), plugin),
        ...dd(t('skills.detail.meta.path'), h('span', { class: 'mono wrap', title: s.path }, tilde(s.path, home))),
        ...dd(
          t('skills.detail.meta.model'),
          s.modelInvocable ? t('skills.detail.modelMay') : t('plugins.state.userInvokedOnly'),
        ),
        ...dd(
          t('skills.detail.meta.enabled'),
          h('label', { class: 'check' }, toggle, enabled ? t('skills.detail.enabled') : t('skills.detail.disabled')),
        ),
        ...dd(
          t('skills.detail.meta.shadowedBy'),
          s.shadowedBy
            ? h(
                'span',
                { class: 'mono wrap' },
                t('skills.detail.shadowedByIn', {
                  path: tilde(s.shadowedBy, home),
                  clients: (s.shadowedIn ?? []).join(', '),
                }),
              )
            : null,
        ),
      ),
      shadowed.length
        ? h(
            'div',
            null,
            h('h4', null, t('skills.detail.shadows', { n: shadowed.length })),
            h('ul', { class: 'plain' }, ...shadowed),
          )
        : null,
    ),
    askedSection(s, deps.answers),
    pathsSection(s),
    s.issues?.length
      ? h('section', { class: 'card' }, h('h3', null, t('skills.detail.issues')), issueGroups(s.issues))
      : null,
  );
}
