// What changed (U6): the catalog snapshots the backend stores after every scan that changed
// anything (Snapshots, newest first), and for the selected one what changed since the snapshot
// before it (SnapshotDiff), one line per plugin, skill or MCP server. Snapshots never change, so
// a diff is fetched once.

import { coalesced } from '../coalesce';
import { api, errorText } from '../bridge';
import { badge, h, mount, tilde } from '../dom';
import { fmtDateTime, fmtNumber, fmtTime, t, type Key } from '../i18n';
import type { Change, SnapshotInfo } from '../types';
import type { CatalogIndex } from '../search';

const KIND_BADGE: Record<Change['kind'], string> = { added: 'ok', removed: 'error', changed: 'info' };
const KIND_TEXT: Record<Change['kind'], Key> = {
  added: 'timeline.kind.added',
  removed: 'timeline.kind.removed',
  changed: 'timeline.kind.changed',
};
const WHAT_TEXT: Record<Change['what'], Key> = {
  plugin: 'timeline.what.plugin',
  skill: 'timeline.what.skill',
  server: 'timeline.what.server',
};

/** A snapshot's time, date and time of day (a value that is not a time is shown as given). */
function when(time: string): string {
  return fmtDateTime(time);
}

/** A snapshot's time of day. */
function clock(time: string): string {
  return fmtTime(time);
}

function totals(s: SnapshotInfo): string {
  const parts = [t('timeline.count.plugins', { n: s.plugins })];
  if (s.errors) parts.push(t('plugins.count.errors', { n: s.errors }));
  if (s.warnings) parts.push(t('plugins.count.warnings', { n: s.warnings }));
  return parts.join(t('timeline.totals.sep'));
}

export class TimelineView {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly detail: HTMLElement;
  private ix: CatalogIndex | null = null;
  private snapshots: SnapshotInfo[] = [];
  private loaded = false;
  private loadError = '';
  private selected = 0;
  /** The user chose a snapshot: new ones do not move the selection. */
  private pinned = false;
  private readonly diffs = new Map<number, Change[]>();
  private diffError = '';

  constructor() {
    this.list = h('nav', {
      class: 'target-list',
      'aria-label': t('timeline.snapshots'),
      'data-testid': 'snapshot-list',
    });
    this.detail = h('div', { class: 'pane pane-detail', 'data-testid': 'snapshot-detail', tabindex: '-1' });
    this.el = h(
      'div',
      { class: 'split timeline-page' },
      h('div', { class: 'pane pane-list target-pane' }, this.list),
      this.detail,
    );
  }

  setIndex(ix: CatalogIndex): void {
    this.ix = ix;
    void this.load();
  }

  /** The tab was opened. */
  activate(): void {
    void this.load();
  }

  /** A live reload stored a snapshot. */
  reloaded(): void {
    void this.load();
  }

  /** Calls Snapshots; overlapping calls collapse into one more. */
  private readonly load = coalesced(async () => {
    try {
      this.snapshots = (await api.snapshots()) ?? [];
      this.loadError = '';
    } catch (e) {
      this.loadError = errorText(e);
    } finally {
      this.loaded = true;
    }
    if (!this.snapshots.some((s) => s.id === this.selected)) this.pinned = false;
    if (!this.pinned) this.selected = this.snapshots[0]?.id ?? 0;
    this.render();
    void this.loadDiff();
  });

  private previous(id: number): SnapshotInfo | undefined {
    const i = this.snapshots.findIndex((s) => s.id === id);
    return i >= 0 ? this.snapshots[i + 1] : undefined;
  }

  private async loadDiff(): Promise<void> {
    const id = this.selected;
    const prev = this.previous(id);
    if (!id || !prev || this.diffs.has(id)) return;
    try {
      const changes = (await api.snapshotDiff(prev.id, id)) ?? [];
      this.diffs.set(id, changes);
      this.diffError = '';
    } catch (e) {
      this.diffError = errorText(e);
    }
    if (id === this.selected) this.renderDetail();
  }

  private select(id: number): void {
    this.selected = id;
    this.pinned = true;
    this.diffError = '';
    this.render();
    void this.loadDiff();
  }

  private render(): void {
    this.renderList();
    this.renderDetail();
  }

  private renderList(): void {
    const nodes: Node[] = [h('h3', { class: 'target-group' }, t('timeline.snapshots'))];
    if (this.loadError)
      nodes.push(h('p', { class: 'notice notice-error' }, t('timeline.loadError', { msg: this.loadError })));
    if (this.loaded && !this.snapshots.length && !this.loadError)
      nodes.push(h('p', { class: 'muted small timeline-empty', 'data-testid': 'no-snapshots' }, t('timeline.empty')));
    nodes.push(
      h(
        'ol',
        { class: 'plain' },
        ...this.snapshots.map((s, i) => {
          const sel = s.id === this.selected;
          return h(
            'li',
            null,
            h(
              'button',
              {
                type: 'button',
                class: `target snapshot${sel ? ' selected' : ''}`,
                'data-testid': 'snapshot',
                'data-id': String(s.id),
                'aria-current': sel ? 'true' : undefined,
                title: when(s.time),
                onclick: () => this.select(s.id),
              },
              h(
                'span',
                { class: 'target-name' },
                h('time', { datetime: s.time }, clock(s.time)),
                h(
                  'span',
                  { class: 'muted small' },
                  t(i === 0 ? 'timeline.row.idLatest' : 'timeline.row.id', { id: String(s.id) }),
                ),
              ),
              h(
                'span',
                { class: 'target-side' },
                s.errors ? badge(t('plugins.count.errors', { n: s.errors }), 'error') : null,
                s.warnings ? badge(t('plugins.count.warnings', { n: s.warnings }), 'warning') : null,
                h('span', { class: 'muted small' }, t('timeline.count.plugins', { n: s.plugins })),
              ),
            ),
          );
        }),
      ),
    );
    mount(this.list, ...nodes);
  }

  private renderDetail(): void {
    const s = this.snapshots.find((x) => x.id === this.selected);
    if (!s) {
      mount(this.detail, h('p', { class: 'muted' }, this.loaded ? t('timeline.intro') : t('timeline.loading')));
      return;
    }
    const prev = this.previous(s.id);
    const changes = this.diffs.get(s.id);
    const stat = (n: number, label: string) =>
      h('div', { class: 'stat' }, h('strong', null, fmtNumber(n)), h('span', null, label));
    let body: Node;
    if (!prev) body = h('p', { class: 'muted', 'data-testid': 'snapshot-first' }, t('timeline.first'));
    else if (this.diffError) body = h('p', { class: 'notice notice-error' }, this.diffError);
    else if (!changes) body = h('p', { class: 'muted small' }, t('timeline.changes.loading'));
    else if (!changes.length)
      body = h('p', { class: 'muted', 'data-testid': 'changes-none' }, t('timeline.changes.none'));
    else
      body = h(
        'ul',
        { class: 'plain change-list', 'data-testid': 'changes' },
        ...changes.map((c) =>
          h(
            'li',
            { class: 'change', 'data-testid': 'change', 'data-kind': c.kind, 'data-what': c.what, 'data-id': c.id },
            h(
              'div',
              { class: 'change-head' },
              badge(KIND_TEXT[c.kind] ? t(KIND_TEXT[c.kind]) : c.kind, KIND_BADGE[c.kind] ?? 'neutral'),
              h('span', { class: 'muted small' }, WHAT_TEXT[c.what] ? t(WHAT_TEXT[c.what]) : c.what),
              h('code', null, c.id),
              c.detail ? h('span', { class: 'change-detail' }, c.detail) : null,
            ),
            c.path ? h('div', { class: 'muted small mono wrap' }, tilde(c.path, this.ix?.doc.home)) : null,
          ),
        ),
      );
    mount(
      this.detail,
      h(
        'div',
        { class: 'detail-body', 'data-testid': 'snapshot-view', 'data-id': String(s.id) },
        h(
          'div',
          { class: 'detail-head' },
          h('h2', null, t('timeline.snapshot.title', { id: String(s.id) })),
          h(
            'p',
            { class: 'muted small' },
            h('time', { datetime: s.time }, when(s.time)),
            t('timeline.snapshot.totals', { totals: totals(s) }),
          ),
        ),
        h(
          'div',
          { class: 'stats' },
          stat(s.plugins, t('timeline.stat.plugins')),
          stat(s.valid, t('timeline.stat.valid')),
          stat(s.errors, t('timeline.stat.errors')),
          stat(s.warnings, t('timeline.stat.warnings')),
        ),
        h(
          'section',
          { class: 'card', 'aria-labelledby': 'h-changes' },
          h(
            'h3',
            { id: 'h-changes' },
            prev ? t('timeline.changes.titleSince', { id: String(prev.id) }) : t('timeline.changes.title'),
            changes?.length ? h('span', { class: 'muted' }, t('timeline.changes.count', { n: changes.length })) : null,
          ),
          prev
            ? h('p', { class: 'muted small' }, t('timeline.changes.range', { from: when(prev.time), to: when(s.time) }))
            : null,
          body,
        ),
      ),
    );
  }
}
