// One local development link in the Local development view: name, validity, place, mode and
// issue counts (from Links), source → destination, Show and Unlink, and the issues of the
// catalog's plugin at the destination, each with its file and the fix.

import { badge, h, plural, tilde } from '../dom';
import { allIssues } from '../pluginDetail';
import { countsBadges, issueGroups } from '../render';
import type { LinkInto, LinkResult, Plugin } from '../types';

export const INTO_LABEL: Record<LinkInto, string> = { home: 'Plugboard home', cursor: 'Cursor local' };

export interface LinkItemDeps {
  home: string | undefined;
  /** An Unlink of this link is under way. */
  unlinking: boolean;
  unlink(): void;
  /** Opens the plugin in the Plugins tab. */
  show(id: string): void;
}

/** The list item of link l; p is the catalog's plugin at its destination, when the catalog has it. */
export function linkItem(l: LinkResult, p: Plugin | undefined, d: LinkItemDeps): HTMLElement {
  const issues = p ? allIssues(p) : [];
  return h(
    'li',
    {
      class: 'dev-link',
      'data-testid': 'dev-link-item',
      'data-name': l.name,
      'data-into': l.into,
      'data-valid': String(l.valid),
    },
    h(
      'div',
      { class: 'dev-link-head' },
      h('strong', { class: 'mono' }, l.name),
      l.valid ? badge('valid', 'ok') : badge('invalid', 'error'),
      badge(INTO_LABEL[l.into] ?? l.into, 'fmt-none'),
      badge(l.mode === 'copy' ? 'copy' : 'symlink', 'info'),
      h('span', { 'data-testid': 'dev-link-counts' }, countsBadges({ errors: l.errors, warnings: l.warnings })),
      h('span', { class: 'grow' }),
      p
        ? h(
            'button',
            {
              type: 'button',
              class: 'btn btn-quiet btn-small',
              'aria-label': `Show ${l.name} in Plugins`,
              onclick: () => d.show(p.id),
            },
            'Show',
          )
        : null,
      h(
        'button',
        {
          type: 'button',
          class: 'btn btn-small',
          'data-testid': 'dev-unlink',
          'aria-label': `Unlink ${l.name}`,
          disabled: d.unlinking,
          onclick: () => d.unlink(),
        },
        d.unlinking ? 'Unlinking…' : 'Unlink',
      ),
    ),
    h(
      'div',
      { class: 'small mono muted wrap', title: `${l.source} → ${l.dest}` },
      tilde(l.source, d.home),
      ' → ',
      tilde(l.dest, d.home),
    ),
    l.sourceExists
      ? null
      : h('p', { class: 'notice notice-error small' }, 'The source folder is gone: unlink it, or put the folder back.'),
    l.skipped?.length ? h('p', { class: 'muted small' }, `Not copied: ${l.skipped.join(', ')}`) : null,
    p
      ? issues.length
        ? h(
            'div',
            { class: 'dev-link-issues', 'data-testid': 'dev-link-issues' },
            h('h4', null, plural(issues.length, 'issue')),
            issueGroups(issues, 'dev-issues'),
          )
        : null
      : h('p', { class: 'muted small' }, 'Not in the catalog yet: it appears after the next reload.'),
  );
}
