// One local development link in the Local development view: name, validity, place, mode and
// issue counts (from Links), source → destination, Show and Unlink, and the issues of the
// catalog's plugin at the destination, each with its file and the fix.

import { badge, h, tilde } from '../dom';
import { t } from '../i18n';
import { allIssues } from '../pluginDetail';
import { countsBadges, issueGroups } from '../render';
import type { LinkResult, Plugin } from '../types';

/** The name of a place a link goes into, for people. */
export function intoLabel(into: string): string {
  return into === 'cursor' ? t('dev.into.cursor') : into === 'home' ? t('dev.into.home') : into;
}

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
      l.valid ? badge(t('dev.item.valid'), 'ok') : badge(t('dev.item.invalid'), 'error'),
      badge(intoLabel(l.into), 'fmt-none'),
      badge(l.mode === 'copy' ? t('dev.item.copy') : t('dev.item.symlink'), 'info'),
      h('span', { 'data-testid': 'dev-link-counts' }, countsBadges({ errors: l.errors, warnings: l.warnings })),
      h('span', { class: 'grow' }),
      p
        ? h(
            'button',
            {
              type: 'button',
              class: 'btn btn-quiet btn-small',
              'aria-label': t('dev.item.showLabel', { name: l.name }),
              onclick: () => d.show(p.id),
            },
            t('dev.item.show'),
          )
        : null,
      h(
        'button',
        {
          type: 'button',
          class: 'btn btn-small',
          'data-testid': 'dev-unlink',
          'aria-label': t('dev.item.unlinkLabel', { name: l.name }),
          disabled: d.unlinking,
          onclick: () => d.unlink(),
        },
        d.unlinking ? t('dev.item.unlinking') : t('dev.item.unlink'),
      ),
    ),
    h(
      'div',
      { class: 'small mono muted wrap', title: `${l.source} → ${l.dest}` },
      tilde(l.source, d.home),
      ' → ',
      tilde(l.dest, d.home),
    ),
    l.sourceExists ? null : h('p', { class: 'notice notice-error small' }, t('dev.item.sourceGone')),
    l.skipped?.length
      ? h('p', { class: 'muted small' }, t('dev.item.notCopied', { files: l.skipped.join(', ') }))
      : null,
    p
      ? issues.length
        ? h(
            'div',
            { class: 'dev-link-issues', 'data-testid': 'dev-link-issues' },
            h('h4', null, t('dev.item.issues', { n: issues.length })),
            issueGroups(issues, 'dev-issues'),
          )
        : null
      : h('p', { class: 'muted small' }, t('dev.item.notInCatalog')),
  );
}
