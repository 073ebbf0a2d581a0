// MCP servers merged by name: the winner (source, plugin, file, type, sanitised summary) and the
// declarations it shadows. Merge order: ~/.cursor/mcp.json, then plugin MCP files, then the
// workspace's files when the workspace is trusted.

import { badge, h, mount, tilde } from '../dom';
import { t } from '../i18n';
import { mcpSummary, typeBadge } from '../render';
import { type CatalogIndex, filterServers } from '../search';
import type { MergedServer, ServerRef } from '../types';
import { VList } from '../vlist';
import type { Ctx } from './ctx';

const ROW_HEIGHT = 52;

export class McpView {
  readonly el: HTMLElement;
  private readonly ctx: Ctx;
  private readonly list: VList;
  private readonly search: HTMLInputElement;
  private readonly count: HTMLElement;
  private readonly detail: HTMLElement;
  private ix: CatalogIndex | null = null;
  private visible: number[] = [];
  private selected: string | null = null;

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    this.search = h('input', {
      type: 'search',
      class: 'search',
      placeholder: t('skills.mcp.searchPlaceholder'),
      'aria-label': t('skills.mcp.searchLabel'),
      'data-testid': 'mcp-search',
      autocomplete: 'off',
      spellcheck: 'false',
    });
    this.count = h('div', { class: 'count', 'data-testid': 'mcp-count', 'aria-live': 'polite' });
    this.list = new VList({
      rowHeight: ROW_HEIGHT,
      role: 'listbox',
      label: t('skills.mcp.listLabel'),
      testid: 'mcp-list',
      idPrefix: 'mcp-opt',
      render: (i) => this.row(this.ix!.doc.mcp[this.visible[i]]),
      onSelect: (i) => this.show(this.ix!.doc.mcp[this.visible[i]].name),
      onOpen: () => this.detail.querySelector<HTMLElement>('h2')?.focus(),
    });
    this.detail = h('div', {
      class: 'pane pane-detail',
      'data-testid': 'mcp-detail',
      tabindex: -1,
      'aria-label': t('skills.mcp.detailLabel'),
    });
    this.el = h(
      'div',
      { class: 'split' },
      h(
        'div',
        { class: 'pane pane-list' },
        h('div', { class: 'toolbar' }, this.search, this.count),
        h('div', { class: 'list-wrap' }, this.list.el),
      ),
      this.detail,
    );
    this.search.addEventListener('input', () => this.refilter());
    this.search.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        this.search.value = '';
        this.refilter();
      } else if (e.key === 'ArrowDown') {
        e.preventDefault();
        this.list.focus();
      }
    });
  }

  focusSearch(): void {
    this.search.focus();
    this.search.select();
  }

  setIndex(ix: CatalogIndex): void {
    this.ix = ix;
    if (this.selected && !ix.doc.mcp.some((m) => m.name === this.selected)) this.selected = null;
    this.refilter();
    this.renderDetail();
  }

  private refilter(): void {
    const ix = this.ix;
    if (!ix) return;
    this.visible = filterServers(ix, this.search.value);
    const total = ix.doc.mcp.length;
    this.count.textContent =
      this.visible.length === total
        ? t('skills.mcp.count', { n: total })
        : t('skills.mcp.countFiltered', { shown: this.visible.length, n: total });
    const sel = this.selected ? this.visible.findIndex((i) => ix.doc.mcp[i].name === this.selected) : -1;
    this.list.setData(this.visible.length, sel);
  }

  private show(name: string): void {
    this.selected = name;
    this.renderDetail();
  }

  private origin(r: ServerRef): string {
    return r.source === 'plugin' && r.plugin ? t('skills.mcp.originPlugin', { plugin: r.plugin }) : r.source;
  }

  private row(m: MergedServer): HTMLElement {
    const n = m.shadowed?.length ?? 0;
    return h(
      'div',
      { class: 'mrow', 'data-testid': 'mcp-row', 'data-name': m.name },
      h('div', { class: 'prow-main' }, h('span', { class: 'pname' }, m.name), typeBadge(m.winner.type)),
      h(
        'div',
        { class: 'prow-sub' },
        h('span', null, t('skills.mcp.from', { origin: this.origin(m.winner) })),
        n ? h('span', { class: 'muted' }, t('skills.mcp.shadows', { n })) : null,
      ),
    );
  }

  private ref(r: ServerRef, winner: boolean): HTMLElement {
    const home = this.ix!.doc.home;
    return h(
      'li',
      { class: `server ${winner ? 'winner' : 'loser'}`, 'data-testid': winner ? 'mcp-winner' : 'mcp-shadowed' },
      h(
        'div',
        { class: 'server-head' },
        winner ? badge(t('skills.mcp.winnerBadge'), 'ok') : badge(t('plugins.state.shadowed'), 'neutral'),
        ' ',
        typeBadge(r.type),
        ' ',
        badge(r.source, 'neutral'),
        r.plugin
          ? h('button', { type: 'button', class: 'link', onclick: () => this.ctx.showPlugin(r.plugin!) }, r.plugin)
          : null,
      ),
      h('div', { class: 'mono small wrap', title: r.file }, tilde(r.file, home)),
      mcpSummary(r.type, r.summary),
    );
  }

  private renderDetail(): void {
    const ix = this.ix;
    if (!ix) return;
    const m = this.selected ? ix.doc.mcp.find((x) => x.name === this.selected) : undefined;
    if (!m) {
      mount(
        this.detail,
        h(
          'article',
          { class: 'detail-body' },
          h(
            'header',
            { class: 'detail-head' },
            h('h2', { tabindex: -1 }, t('skills.mcp.overview.title')),
            h('p', { class: 'lead' }, t('skills.mcp.overview.lead', { n: ix.doc.mcp.length })),
          ),
          h(
            'section',
            { class: 'card' },
            h('h3', null, t('skills.mcp.overview.mergeOrder')),
            h(
              'ol',
              { class: 'layers' },
              h('li', null, h('code', null, '~/.cursor/mcp.json'), t('skills.mcp.overview.userFile')),
              h('li', null, t('skills.mcp.overview.pluginFiles')),
              h(
                'li',
                null,
                t('skills.mcp.overview.workspaceBefore'),
                h('code', null, '.cursor/mcp.json'),
                t('skills.mcp.overview.workspaceAnd'),
                h('code', null, '.mcp.json'),
                t('skills.mcp.overview.workspaceAfter'),
              ),
            ),
            h(
              'p',
              { class: 'muted small' },
              ix.doc.workspace
                ? t(
                    ix.doc.workspaceTrusted
                      ? 'skills.mcp.overview.workspaceTrusted'
                      : 'skills.mcp.overview.workspaceUntrusted',
                    { path: tilde(ix.doc.workspace, ix.doc.home) },
                  )
                : t('skills.mcp.overview.noWorkspace'),
            ),
          ),
        ),
      );
      return;
    }
    mount(
      this.detail,
      h(
        'article',
        { class: 'detail-body', 'data-name': m.name },
        h(
          'header',
          { class: 'detail-head' },
          h('h2', { tabindex: -1 }, m.name),
          h(
            'div',
            { class: 'detail-badges' },
            typeBadge(m.winner.type),
            badge(t('skills.mcp.from', { origin: this.origin(m.winner) }), 'neutral'),
          ),
        ),
        h(
          'section',
          { class: 'card' },
          h('h3', null, t('skills.mcp.detail.winner')),
          h('ul', { class: 'servers' }, this.ref(m.winner, true)),
        ),
        h(
          'section',
          { class: 'card' },
          h(
            'h3',
            null,
            t('skills.mcp.detail.shadowed'),
            h('span', { class: 'muted' }, t('skills.mcp.detail.shadowedCount', { n: m.shadowed?.length ?? 0 })),
          ),
          m.shadowed?.length
            ? h('ul', { class: 'servers' }, ...m.shadowed.map((r) => this.ref(r, false)))
            : h('p', { class: 'muted' }, t('skills.mcp.detail.noneShadowed')),
        ),
        h('p', { class: 'muted small' }, t('skills.mcp.detail.note')),
      ),
    );
  }
}
