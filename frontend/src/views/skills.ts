// Skills: every standalone and plugin skill in precedence order (first valid name wins), with
// source, trust, active/shadowed, enabled and model invocation; the selected skill's detail on the
// right. The enabled switch edits the settings draft (saved from the bar at the bottom).

import { badge, h, keepFocus, mount, tilde } from '../dom';
import { fmtNumber, t } from '../i18n';
import { type CatalogIndex, filterSkills, type SkillFilter } from '../search';
import type { SkillEntry } from '../types';
import { skillDetail, skillsOverview } from '../skillDetail';
import { VList } from '../vlist';
import type { Ctx } from './ctx';

const ROW_HEIGHT = 44;
const SOURCES = ['user', 'plugin', 'project', 'cursor-plugin', 'plugin-path', 'builtin'];

export class SkillsView {
  readonly el: HTMLElement;
  private readonly ctx: Ctx;
  private readonly list: VList;
  private readonly search: HTMLInputElement;
  private readonly source: HTMLSelectElement;
  private readonly state: HTMLSelectElement;
  private readonly count: HTMLElement;
  private readonly detail: HTMLElement;
  private ix: CatalogIndex | null = null;
  private visible: number[] = [];
  private selected: SkillEntry | null = null;

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    // an installed client's answer about the shown standalone skill came
    ctx.answers.onChange(() => keepFocus(this.detail, () => this.renderDetail()));
    this.search = h('input', {
      type: 'search',
      class: 'search',
      placeholder: t('skills.list.searchPlaceholder'),
      'aria-label': t('skills.list.searchLabel'),
      'data-testid': 'skill-search',
      autocomplete: 'off',
      spellcheck: 'false',
    });
    this.source = h(
      'select',
      { 'aria-label': t('skills.list.sourceLabel'), 'data-testid': 'skill-filter-source' },
      h('option', { value: '' }, t('skills.list.allSources')),
      ...SOURCES.map((s) => h('option', { value: s }, s)),
    );
    this.state = h(
      'select',
      { 'aria-label': t('skills.list.stateLabel'), 'data-testid': 'skill-filter-state' },
      h('option', { value: '' }, t('skills.list.allStates')),
      h('option', { value: 'active' }, t('plugins.state.active')),
      h('option', { value: 'shadowed' }, t('plugins.state.shadowed')),
      h('option', { value: 'invalid' }, t('plugins.state.invalid')),
      h('option', { value: 'disabled' }, t('plugins.state.disabled')),
    );
    this.count = h('div', { class: 'count', 'data-testid': 'skill-count-label', 'aria-live': 'polite' });
    const col = (text: string, cls = '') => h('span', { role: 'columnheader', class: cls }, text);
    const header = h(
      'div',
      { class: 'srow srow-head', role: 'row', 'aria-rowindex': 1 },
      col('#', 'num'),
      col(t('skills.list.col.skill')),
      col(t('skills.list.col.source')),
      col(t('skills.list.col.trust')),
      col(t('skills.list.col.precedence')),
      col(t('skills.list.col.model')),
      col(t('skills.list.col.on'), 'center'),
    );
    this.list = new VList({
      rowHeight: ROW_HEIGHT,
      role: 'grid',
      label: t('skills.list.label'),
      testid: 'skill-list',
      idPrefix: 'skill-row',
      header,
      render: (i) => this.row(this.visible[i]),
      onSelect: (i) => this.show(this.ix!.doc.skills[this.visible[i]]),
      onOpen: () => this.detail.querySelector<HTMLElement>('h2')?.focus(),
    });
    this.detail = h('div', {
      class: 'pane pane-detail',
      'data-testid': 'skill-detail',
      tabindex: -1,
      'aria-label': t('skills.list.detailLabel'),
    });
    this.el = h(
      'div',
      { class: 'split split-wide' },
      h(
        'div',
        { class: 'pane pane-list' },
        h(
          'div',
          { class: 'toolbar' },
          this.search,
          h('div', { class: 'filters' }, this.source, this.state),
          this.count,
        ),
        h('div', { class: 'list-wrap' }, this.list.el),
      ),
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
      }
    });
    this.source.addEventListener('change', refilter);
    this.state.addEventListener('change', refilter);
  }

  focusSearch(): void {
    this.search.focus();
    this.search.select();
  }

  setIndex(ix: CatalogIndex): void {
    this.ix = ix;
    if (this.selected) {
      const s = this.selected;
      this.selected = ix.doc.skills.find((x) => x.path === s.path && x.id === s.id) ?? null;
    }
    this.refilter();
    this.renderDetail();
  }

  /** Redraws rows and detail (the settings draft changed). */
  refresh(): void {
    if (!this.ix) return;
    this.refilter();
    this.renderDetail();
  }

  private filter(): SkillFilter {
    return { query: this.search.value, source: this.source.value, state: this.state.value as SkillFilter['state'] };
  }

  private enabled(s: SkillEntry): boolean {
    return this.ctx.settings.enabled(s.id, s.enabled);
  }

  private refilter(): void {
    const ix = this.ix;
    if (!ix) return;
    this.visible = filterSkills(ix, this.filter(), (s) => this.enabled(s));
    const total = ix.doc.skills.length;
    this.count.textContent =
      this.visible.length === total
        ? t('skills.list.count', { n: total })
        : t('skills.list.countFiltered', { shown: this.visible.length, n: total });
    const sel = this.selected ? this.visible.findIndex((i) => ix.doc.skills[i] === this.selected) : -1;
    this.list.setData(this.visible.length, sel);
  }

  select(entry: SkillEntry): void {
    const ix = this.ix;
    if (!ix) return;
    let i = this.visible.findIndex((v) => ix.doc.skills[v] === entry);
    if (i < 0) {
      this.search.value = '';
      this.source.value = '';
      this.state.value = '';
      this.refilter();
      i = this.visible.findIndex((v) => ix.doc.skills[v] === entry);
    }
    if (i >= 0) this.list.select(i);
  }

  private show(entry: SkillEntry): void {
    this.selected = entry;
    this.renderDetail();
  }

  private precedence(s: SkillEntry): HTMLElement {
    const ix = this.ix!;
    if (s.active) {
      const n = s.shadows?.length ?? 0;
      return h(
        'span',
        { class: 'cell-state' },
        badge(t('plugins.state.active'), 'ok'),
        n ? h('span', { class: 'muted small' }, t('skills.row.shadows', { n })) : null,
      );
    }
    if (s.shadowedBy) {
      const w = ix.skillByPath.get(s.shadowedBy);
      return h(
        'span',
        { class: 'cell-state', title: t('skills.row.shadowedByTitle', { path: s.shadowedBy }) },
        badge(t('plugins.state.shadowed'), 'neutral'),
        h(
          'span',
          { class: 'muted small' },
          t('skills.row.shadowedByIn', {
            who: w ? w.source : tilde(s.shadowedBy, ix.doc.home),
            clients: (s.shadowedIn ?? []).join(', '),
          }),
        ),
      );
    }
    return h(
      'span',
      { class: 'cell-state' },
      s.valid ? badge(t('plugins.state.inactive'), 'neutral') : badge(t('plugins.state.invalid'), 'error'),
    );
  }

  private row(docIndex: number): HTMLElement {
    const s = this.ix!.doc.skills[docIndex];
    const on = this.enabled(s);
    const toggle = h('input', {
      type: 'checkbox',
      role: 'switch',
      'aria-label': t('skills.enable', { id: s.id }),
      'data-testid': 'skill-enabled',
      checked: on,
    });
    toggle.addEventListener('click', (e) => e.stopPropagation());
    toggle.addEventListener('change', () => void this.ctx.settings.switchNow(s.id, toggle.checked));
    return h(
      'div',
      {
        class: `srow${s.active ? '' : ' inactive'}`,
        'data-testid': 'skill-row',
        'data-id': s.id,
        'data-source': s.source,
      },
      h('span', { role: 'gridcell', class: 'num muted' }, fmtNumber(docIndex + 1)),
      h(
        'span',
        { role: 'gridcell', class: 'cell-id' },
        h('span', { class: 'sid' }, s.id),
        s.valid ? null : badge(t('plugins.state.invalid'), 'error'),
      ),
      h('span', { role: 'gridcell', class: 'small' }, s.source),
      h(
        'span',
        { role: 'gridcell' },
        s.trusted ? badge(t('plugins.state.trusted'), 'ok') : badge(t('plugins.state.untrusted'), 'warning'),
      ),
      h('span', { role: 'gridcell' }, this.precedence(s)),
      h(
        'span',
        { role: 'gridcell', class: 'small' },
        s.modelInvocable ? t('skills.row.invocable') : h('span', { class: 'muted' }, t('skills.row.userOnly')),
      ),
      h('span', { role: 'gridcell', class: 'center' }, toggle),
    );
  }

  private renderDetail(): void {
    const ix = this.ix;
    if (!ix) return;
    const s = this.selected;
    mount(
      this.detail,
      s
        ? skillDetail(s, {
            ix,
            enabled: this.enabled(s),
            setEnabled: (on) => void this.ctx.settings.switchNow(s.id, on),
            showPlugin: (id) => this.ctx.showPlugin(id),
            answers: this.ctx.answers,
          })
        : skillsOverview(ix),
    );
  }
}
