// Plugins: a searchable, filterable, virtualised list of every package on the left and the
// selected plugin's detail on the right.

import { BudgetPanel } from './budget';
import { api, errorText } from '../bridge';
import { clientBadge, CLIENTS } from '../clients';
import { badge, h, keepFocus, mount, tilde } from '../dom';
import { fmtNumber, type Key, t } from '../i18n';
import { catalogs } from '../i18n/catalog';
import { pluginDetail } from '../pluginDetail';
import { issueGroups, stateBadge } from '../render';
import { type CatalogIndex, filterPlugins, type PluginFilter, validServers } from '../search';
import type { Place, Plugin } from '../types';
import { VList } from '../vlist';
import type { Ctx } from './ctx';
import { Installs } from './install';
import { FORMATS, formatBadge, formatLabel, SOURCES, sourceLabel } from '../labels';

const ROW_HEIGHT = 60;

function options(label: string, values: string[], word: (v: string) => string): HTMLOptionElement[] {
  return [h('option', { value: '' }, label), ...values.map((v) => h('option', { value: v }, word(v)))];
}

/** The issues of the catalog no plugin holds: its standalone skills' and its own. */
function issuesOutsidePlugins(ix: CatalogIndex): number {
  const s = ix.doc.summary.issues;
  let inPlugins = 0;
  for (const p of ix.doc.plugins) inPlugins += p.issueCounts.errors + p.issueCounts.warnings;
  return Math.max(0, s.errors + s.warnings - inPlugins);
}

export class PluginsView {
  readonly el: HTMLElement;
  private readonly ctx: Ctx;
  private readonly list: VList;
  private readonly search: HTMLInputElement;
  private readonly format: HTMLSelectElement;
  private readonly source: HTMLSelectElement;
  private readonly issues: HTMLInputElement;
  private readonly count: HTMLElement;
  /** With Has issues: the issues no plugin row holds (standalone skills, the catalog's own). */
  private readonly outside: HTMLButtonElement;
  private readonly empty: HTMLElement;
  private readonly detail: HTMLElement;
  private readonly installs: Installs;
  private readonly budgetPanel = new BudgetPanel('budget-plugin');
  private ix: CatalogIndex | null = null;
  private visible: number[] = [];
  private selectedId: string | null = null;
  private renderedDetail: { id: string | null; doc: unknown } = { id: null, doc: null };

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    this.installs = new Installs(ctx, () => {
      if (!this.ix) return;
      this.list.setData(this.visible.length, this.list.selectedIndex);
      keepFocus(this.detail, () => this.refreshDetail());
    });
    // an installed client's answer about the shown plugin came (or the asking moved on)
    ctx.answers.onChange(() => keepFocus(this.detail, () => this.refreshDetail()));
    this.search = h('input', {
      type: 'search',
      class: 'search',
      placeholder: t('plugins.list.searchPlaceholder'),
      'aria-label': t('plugins.list.searchLabel'),
      'data-testid': 'search',
      autocomplete: 'off',
      spellcheck: 'false',
    });
    this.format = h(
      'select',
      { 'aria-label': t('plugins.list.format'), 'data-testid': 'filter-format' },
      ...options(t('plugins.list.allFormats'), FORMATS, formatLabel),
    );
    this.source = h(
      'select',
      { 'aria-label': t('plugins.list.source'), 'data-testid': 'filter-source' },
      ...options(t('plugins.list.allSources'), SOURCES, sourceLabel),
    );
    this.issues = h('input', { type: 'checkbox', 'data-testid': 'filter-issues' });
    this.count = h('div', { class: 'count', 'data-testid': 'plugin-count', 'aria-live': 'polite' });
    this.outside = h('button', {
      type: 'button',
      class: 'link small',
      'data-testid': 'issues-outside',
      hidden: true,
      onclick: () => this.ctx.showProblems(''),
    });
    this.list = new VList({
      rowHeight: ROW_HEIGHT,
      role: 'listbox',
      label: t('plugins.list.label'),
      testid: 'plugin-list',
      idPrefix: 'plugin-opt',
      render: (i) => this.row(this.ix!.doc.plugins[this.visible[i]]),
      onSelect: (i) => this.selectId(this.ix!.doc.plugins[this.visible[i]].id, false),
      onOpen: (i) => {
        this.selectId(this.ix!.doc.plugins[this.visible[i]].id, false);
        this.openDetail();
      },
    });
    this.empty = h('div', { class: 'list-empty', 'data-testid': 'empty', hidden: true });
    this.detail = h('div', {
      class: 'pane pane-detail',
      'data-testid': 'detail',
      tabindex: -1,
      'aria-label': t('plugins.list.detailLabel'),
    });
    const toolbar = h(
      'div',
      { class: 'toolbar' },
      this.search,
      h(
        'div',
        { class: 'filters' },
        this.format,
        this.source,
        h('label', { class: 'check' }, this.issues, ` ${t('plugins.list.hasIssues')}`),
      ),
      h(
        'div',
        { class: 'row toolbar-actions' },
        this.count,
        this.outside,
        h('span', { class: 'grow' }),
        this.installs.checkButton(),
        this.installs.button(),
      ),
      this.installs.notice,
    );
    this.el = h(
      'div',
      { class: 'split' },
      h('div', { class: 'pane pane-list' }, toolbar, h('div', { class: 'list-wrap' }, this.list.el, this.empty)),
      this.detail,
    );
    const refilter = () => this.refilter();
    this.search.addEventListener('input', refilter);
    this.search.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        this.search.value = '';
        refilter();
      } else if (e.key === 'ArrowDown') {
        e.preventDefault();
        this.list.focus();
        if (this.list.selectedIndex < 0 && this.visible.length) this.list.select(0);
      }
    });
    this.format.addEventListener('change', refilter);
    this.source.addEventListener('change', refilter);
    this.issues.addEventListener('change', refilter);
  }

  focusSearch(): void {
    this.search.focus();
    this.search.select();
  }

  private filter(): PluginFilter {
    return {
      query: this.search.value,
      format: this.format.value,
      source: this.source.value,
      hasIssues: this.issues.checked,
    };
  }

  setIndex(ix: CatalogIndex): void {
    this.ix = ix;
    if (this.selectedId && !ix.pluginById.has(this.selectedId)) this.selectedId = null;
    this.refilter();
    this.renderedDetail = { id: this.renderedDetail.id, doc: null }; // same plugin: keep the scroll
    this.renderDetail();
    void this.installs.load(); // plugins.lock.json may have changed with the catalog
  }

  /** Re-renders the detail (settings draft changed: enabled switches). */
  refreshDetail(): void {
    this.renderedDetail = { id: this.renderedDetail.id, doc: null };
    this.renderDetail();
  }

  private refilter(): void {
    const ix = this.ix;
    if (!ix) return;
    this.visible = filterPlugins(ix, this.filter());
    const total = ix.doc.plugins.length;
    this.count.textContent =
      this.visible.length === total
        ? t('plugins.list.count', { n: total })
        : t('plugins.list.countFiltered', { shown: this.visible.length, n: total });
    const n = issuesOutsidePlugins(ix);
    this.outside.hidden = !this.issues.checked || n === 0;
    this.outside.textContent = t('plugins.list.issuesOutside', { n });
    const sel = this.selectedId === null ? -1 : this.visible.findIndex((i) => ix.doc.plugins[i].id === this.selectedId);
    this.list.setData(this.visible.length, sel);
    if (sel >= 0) this.list.scrollToIndex(sel);
    this.showEmpty(total);
  }

  private showEmpty(total: number): void {
    const ix = this.ix!;
    if (this.visible.length > 0) {
      this.empty.hidden = true;
      return;
    }
    this.empty.hidden = false;
    if (total === 0 && emptyHome(ix)) {
      mount(
        this.empty,
        h('h3', null, t('plugins.empty.noneYet')),
        h('p', { class: 'muted small' }, t('plugins.empty.noneYetHelp')),
      );
    } else if (total === 0) {
      const home = ix.doc.home;
      const where = [
        `${tilde(ix.doc.plugboardHome, home)}/plugins/<id>/`,
        '~/.cursor/plugins/local/*',
        '~/.cursor/plugins/cache/<marketplace>/<plugin>/<revision>/',
        ...ix.doc.settings.skillPluginPaths.map((p) => `${p} (skillPluginPaths)`),
      ];
      mount(
        this.empty,
        h('h3', null, t('plugins.empty.noneFound')),
        h('p', null, t('plugins.empty.looksIn')),
        h('ul', { class: 'mono small' }, ...where.map((w) => h('li', null, w))),
        h('p', { class: 'muted small' }, t('plugins.empty.addHelp')),
      );
    } else {
      mount(
        this.empty,
        h('h3', null, t('plugins.empty.noMatch')),
        h(
          'button',
          { type: 'button', class: 'btn', 'data-testid': 'clear-filters', onclick: () => this.clearFilters() },
          t('plugins.empty.clear'),
        ),
      );
    }
  }

  /**
   * The first run: a home with no plugin and no skill of its own. Where Plugboard looks (each
   * folder, found or not, from Places) and the three ways in.
   */
  private welcome(ix: CatalogIndex): HTMLElement {
    const places = h(
      'ul',
      { class: 'plain welcome-places', 'data-testid': 'welcome-places' },
      h('li', { class: 'muted' }, '…'),
    );
    void api.places().then(
      (ps) =>
        mount(
          places,
          ...ps.map((p) =>
            h(
              'li',
              { 'data-found': String(p.found), 'data-path': p.path },
              p.found ? badge(t('plugins.state.found'), 'ok') : badge(t('plugins.state.notThere'), 'neutral'),
              ' ',
              h('span', { class: 'mono small' }, tilde(p.path, ix.doc.home)),
              h('span', { class: 'muted small' }, ` — ${placeWhat(p)}`),
            ),
          ),
        ),
      (e) => mount(places, h('li', { class: 'notice notice-error' }, errorText(e))),
    );
    const way = (testid: string, label: string, help: string, go: () => void) =>
      h(
        'li',
        null,
        h('button', { type: 'button', class: 'btn', 'data-testid': testid, onclick: go }, label),
        h('span', { class: 'muted small' }, ` ${help}`),
      );
    return h(
      'article',
      { class: 'detail-body welcome', 'data-testid': 'welcome' },
      h('h2', { id: 'detail-title', tabindex: -1 }, t('plugins.welcome.title')),
      h('p', null, t('plugins.welcome.intro')),
      places,
      h('h4', null, t('plugins.welcome.ways')),
      h(
        'ul',
        { class: 'plain welcome-ways' },
        way('welcome-install', t('plugins.welcome.install'), t('plugins.welcome.installHelp'), () =>
          this.installs.open(),
        ),
        way('welcome-link', t('plugins.welcome.link'), t('plugins.welcome.linkHelp'), () => this.ctx.showTab('dev')),
        way('welcome-workspace', t('plugins.welcome.workspace'), t('plugins.welcome.workspaceHelp'), () =>
          this.ctx.showTab('settings'),
        ),
      ),
      // what comes after a plugin is in: the path to a launched agent, each step where it is done
      h('h4', null, t('plugins.welcome.then')),
      h(
        'ol',
        { class: 'welcome-steps', 'data-testid': 'welcome-steps' },
        h('li', null, t('plugins.welcome.stepPlugin')),
        h(
          'li',
          null,
          h(
            'button',
            { type: 'button', class: 'btn', 'data-testid': 'welcome-agent', onclick: () => this.ctx.newAgent() },
            t('plugins.welcome.agent'),
          ),
          h('span', { class: 'muted small' }, ` ${t('plugins.welcome.agentHelp')}`),
        ),
        h('li', null, t('plugins.welcome.stepAssign')),
        h('li', null, t('plugins.welcome.stepLaunch')),
      ),
    );
  }

  clearFilters(): void {
    this.search.value = '';
    this.format.value = '';
    this.source.value = '';
    this.issues.checked = false;
    this.refilter();
  }

  /** Selects a plugin by id (from another view too): clears filters that would hide it. */
  selectId(id: string, reveal = true): void {
    const ix = this.ix;
    if (!ix || !ix.pluginById.has(id)) return;
    this.selectedId = id;
    let i = this.visible.findIndex((v) => ix.doc.plugins[v].id === id);
    if (i < 0 && reveal) {
      this.clearFilters();
      i = this.visible.findIndex((v) => ix.doc.plugins[v].id === id);
    }
    if (i >= 0 && this.list.selectedIndex !== i) {
      this.list.setData(this.visible.length, i);
      this.list.scrollToIndex(i);
    }
    this.renderDetail();
  }

  openDetail(): void {
    const title = this.detail.querySelector<HTMLElement>('#detail-title');
    (title ?? this.detail).focus();
  }

  private renderDetail(): void {
    const ix = this.ix;
    if (!ix) return;
    const id = this.selectedId;
    if (this.renderedDetail.id === id && this.renderedDetail.doc === ix.doc) return;
    const sameItem = this.renderedDetail.id === id;
    const scroll = this.detail.scrollTop;
    this.renderedDetail = { id, doc: ix.doc };
    const p = id ? ix.pluginById.get(id) : undefined;
    if (!p) {
      mount(this.detail, emptyHome(ix) ? this.welcome(ix) : this.overview(ix));
      return;
    }
    if (ix.doc.part === 'list') {
      // the list part has no detail to show: the whole document is on its way
      mount(
        this.detail,
        h('p', { class: 'detail-body muted', 'data-testid': 'detail-loading' }, t('plugins.detail.loading')),
      );
      return;
    }
    this.budgetPanel.set({ dir: p.path }, String(ix.doc.seq));
    mount(
      this.detail,
      pluginDetail(p, {
        ix,
        settings: this.ctx.settings,
        openSkill: (e) => this.ctx.showSkill(e),
        setLaunchAs: (pluginId, client) => this.setLaunchAs(pluginId, client),
        answers: this.ctx.answers,
        installed: this.installs.card(p),
        budget: this.budgetPanel.el,
      }),
    );
    this.detail.scrollTop = sameItem ? scroll : 0;
  }

  /** SetLaunchAs, its rescan applied; then settings again (the choice lives in settings.json: new hash, draft kept). */
  private async setLaunchAs(pluginId: string, client: string): Promise<void> {
    await this.ctx.docCall(() => api.setLaunchAs(pluginId, client));
    await this.ctx.settings.load(true);
  }

  private overview(ix: CatalogIndex): HTMLElement {
    const s = ix.doc.summary;
    const stat = (n: number, label: string) =>
      h('div', { class: 'stat' }, h('strong', null, fmtNumber(n)), h('span', null, label));
    return h(
      'article',
      { class: 'detail-body overview' },
      h(
        'header',
        { class: 'detail-head' },
        h('h2', { id: 'detail-title', tabindex: -1 }, t('plugins.overview.title')),
        h('p', { class: 'lead' }, t('plugins.overview.lead')),
      ),
      h(
        'div',
        { class: 'stats' },
        stat(s.plugins, t('plugins.overview.plugins')),
        stat(s.validPlugins, t('plugins.overview.valid')),
        stat(s.skills, t('plugins.overview.skills')),
        stat(s.activeSkills, t('plugins.overview.activeSkills')),
        stat(s.mcpServers, t('plugins.overview.mcpServers')),
        stat(s.issues.errors, t('plugins.overview.errors')),
        stat(s.issues.warnings, t('plugins.overview.warnings')),
      ),
      h(
        'section',
        { class: 'card', 'data-testid': 'overview-issues' },
        h('h3', null, t('plugins.overview.issues')),
        s.issues.errors + s.issues.warnings
          ? h(
              'p',
              { class: 'row' },
              h(
                'span',
                { 'data-testid': 'overview-issues-total' },
                t('plugins.overview.issuesTotal', {
                  errors: t('problems.errors', { n: s.issues.errors }),
                  warnings: t('problems.warnings', { n: s.issues.warnings }),
                }),
              ),
              h(
                'button',
                { type: 'button', class: 'btn btn-small', onclick: () => this.ctx.showProblems('') },
                t('plugins.overview.showProblems'),
              ),
            )
          : null,
        h('h4', { class: 'small muted' }, t('plugins.overview.catalogWide')),
        issueGroups(ix.doc.issues, 'catalog-issues'),
      ),
      this.installedClients(),
    );
  }

  /** The agent clients on this machine: what each client verdict is judged by. */
  private installedClients(): HTMLElement | null {
    const found = this.ctx.answers.clients();
    if (!found.length) return null;
    return h(
      'section',
      { class: 'card', 'data-testid': 'installed-clients' },
      h('h3', null, t('plugins.overview.clients')),
      h('p', { class: 'muted small card-note' }, t('plugins.overview.clientsNote')),
      h(
        'ul',
        { class: 'plain-list' },
        ...found.map((c) =>
          h(
            'li',
            { 'data-testid': 'installed-client', 'data-client': c.name, 'data-found': String(c.found) },
            h('strong', null, c.version ? `${c.name} ${c.version}` : c.name),
            ' ',
            c.found
              ? h(
                  'span',
                  { class: 'muted small' },
                  h('code', null, c.path ?? ''),
                  ' ',
                  c.version ? t('plugins.overview.clientFrom', { from: c.from ?? '' }) : (c.problem ?? ''),
                )
              : h('span', { class: 'muted small' }, t('plugins.overview.clientMissing')),
          ),
        ),
      ),
    );
  }

  private row(p: Plugin): HTMLElement {
    const mcp = validServers(p);
    const c = p.issueCounts;
    const cl = p.clients;
    // Two lines, each with its own right-hand side: the client badges and the spec verdict beside
    // the name, the issue counts beside format, source and counts.
    return h(
      'div',
      {
        class: 'prow',
        'data-testid': 'plugin-row',
        'data-id': p.id,
        title: p.id === p.name ? undefined : t('plugins.row.idTitle', { id: p.id }),
      },
      h(
        'div',
        { class: 'prow-line' },
        h(
          'div',
          { class: 'prow-main' },
          h('span', { class: `pname${p.name ? '' : ' noname'}` }, p.name || p.id),
          p.version ? h('span', { class: 'pver mono' }, p.version) : null,
        ),
        cl
          ? h(
              'span',
              { class: 'prow-clients', 'data-testid': 'client-badges' },
              ...CLIENTS.map((k) => clientBadge(k, cl[k])),
            )
          : null,
        this.installs.rowBadge(p),
        stateBadge(p, false, true), // a list row has little room: 'with errors'
      ),
      h(
        'div',
        { class: 'prow-line' },
        h(
          'div',
          { class: 'prow-sub' },
          formatBadge(p.format),
          h('span', null, sourceLabel(p.source)),
          h('span', { 'data-testid': 'skill-count' }, t('plugins.count.skills', { n: p.skills.length })),
          p.mcp
            ? h(
                'span',
                { 'data-testid': 'mcp-indicator', class: mcp === null ? 'warn-text' : '' },
                mcp === null ? t('plugins.state.mcpDisabled') : t('plugins.row.mcp', { n: mcp }),
              )
            : null,
        ),
        h(
          'span',
          { class: 'prow-issues', 'data-testid': 'issue-count' },
          c.errors ? h('span', { class: 'n-err' }, t('plugins.count.errors', { n: c.errors })) : null,
          c.warnings ? h('span', { class: 'n-warn' }, t('plugins.count.warnings', { n: c.warnings })) : null,
        ),
      ),
    );
  }
}

/** A home with nothing in it: no plugin, and no skill but the built-in ones. */
function emptyHome(ix: CatalogIndex): boolean {
  return ix.doc.plugins.length === 0 && ix.doc.skills.every((s) => s.source === 'builtin');
}

/** What a welcome folder holds, in the page's language; a kind this page does not know, as the backend says it. */
function placeWhat(p: Place): string {
  const key = `plugins.place.${p.kind}`;
  return key in catalogs.en ? t(key as Key) : p.what;
}
