// Problems: every issue of the catalog in one list (Problems, computed in Go: the same issues the header
// counts), errors first, filtered by severity, code and source. Each row names its file and line, opens
// the file in the user's editor at that line (OpenFile), and leads to the plugin or skill it belongs to.

import { api, errorText } from '../bridge';
import { badge, h, keepFocus, mount } from '../dom';
import { t, type Key } from '../i18n';
import type { Problem } from '../models.gen';
import type { CatalogIndex } from '../search';
import type { Ctx } from './ctx';
import { severityLabel } from '../labels';

const SOURCE_LABEL: Record<string, Key> = {
  plugin: 'problems.source.plugin',
  skill: 'problems.source.skill',
  catalog: 'problems.source.catalog',
};

export class ProblemsView {
  readonly el: HTMLElement;
  private readonly ctx: Ctx;
  private readonly body: HTMLElement;
  private ix: CatalogIndex | null = null;
  private problems: Problem[] = [];
  private loaded = false;
  private error = '';
  private severity = '';
  private code = '';
  private source = '';
  private opened = '';
  private seq = 0;

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    this.body = h('div', { 'data-testid': 'problems-body' });
    this.el = h(
      'section',
      { class: 'pane problems-page', 'data-testid': 'problems', 'aria-labelledby': 'h-problems' },
      h('h2', { id: 'h-problems' }, t('problems.title')),
      h('p', { class: 'muted small' }, t('problems.about')),
      this.body,
    );
  }

  setIndex(ix: CatalogIndex): void {
    this.ix = ix;
    void this.load();
  }

  /** Shows only the problems of a severity ('' all), as a count that leads here asks. */
  filter(severity: string): void {
    this.severity = severity;
    this.code = '';
    this.source = '';
    this.render();
  }

  private async load(): Promise<void> {
    const seq = ++this.seq;
    try {
      const ps = await api.problems();
      if (seq !== this.seq) return;
      this.problems = ps ?? [];
      this.error = '';
    } catch (e) {
      if (seq !== this.seq) return;
      this.error = errorText(e);
    }
    this.loaded = true;
    this.render();
  }

  private async open(p: Problem): Promise<void> {
    this.opened = '';
    try {
      const r = await api.openFile(p.file, p.line ?? 0);
      this.opened = t('problems.opened', { file: p.file, command: r.command.join(' ') });
    } catch (e) {
      this.opened = t('problems.openFailed', { msg: errorText(e) });
    }
    this.render();
  }

  private render(): void {
    keepFocus(this.el, () => this.draw());
  }

  private draw(): void {
    if (!this.loaded) {
      mount(this.body, h('p', { class: 'muted' }, t('problems.loading')));
      return;
    }
    if (this.error) {
      mount(this.body, h('p', { class: 'notice notice-error' }, this.error));
      return;
    }
    const all = this.problems;
    const shown = all.filter(
      (p) =>
        (!this.severity || p.severity === this.severity) &&
        (!this.code || p.code === this.code) &&
        (!this.source || p.source === this.source),
    );
    const select = (
      testid: string,
      label: string,
      value: string,
      options: Array<[string, string]>,
      set: (v: string) => void,
    ) =>
      h(
        'label',
        { class: 'small' },
        label,
        h(
          'select',
          {
            'data-testid': testid,
            onchange: (e: Event) => {
              set((e.target as HTMLSelectElement).value);
              this.render();
            },
          },
          h('option', { value: '' }, t('problems.all')),
          ...options.map(([v, l]) => h('option', { value: v, selected: v === value }, l)),
        ),
      );
    const count = (sev: string) => all.filter((p) => p.severity === sev).length;
    const codes = [...new Set(all.map((p) => p.code))].sort();
    const filters = h(
      'div',
      { class: 'row problems-filters' },
      select(
        'problems-severity',
        t('problems.severity'),
        this.severity,
        [
          ['error', t('problems.errors', { n: count('error') })],
          ['warning', t('problems.warnings', { n: count('warning') })],
          ['info', t('problems.infos', { n: count('info') })],
        ],
        (v) => (this.severity = v),
      ),
      select(
        'problems-code',
        t('problems.code'),
        this.code,
        codes.map((c) => [c, c]),
        (v) => (this.code = v),
      ),
      select(
        'problems-source',
        t('problems.source'),
        this.source,
        Object.keys(SOURCE_LABEL).map((s) => [s, t(SOURCE_LABEL[s])]),
        (v) => (this.source = v),
      ),
    );
    const rows = shown.map((p) => {
      const where = p.file ? `${p.file}${p.line ? `:${p.line}` : ''}` : '';
      const owner = p.plugin
        ? h(
            'button',
            {
              type: 'button',
              class: 'btn btn-small',
              'data-testid': 'problem-plugin',
              onclick: () => this.ctx.showPlugin(p.plugin ?? ''),
            },
            t('problems.showPlugin', { id: p.plugin }),
          )
        : p.skill
          ? h(
              'button',
              {
                type: 'button',
                class: 'btn btn-small',
                'data-testid': 'problem-skill',
                onclick: () => this.showSkill(p.skill ?? ''),
              },
              t('problems.showSkill', { id: p.skill }),
            )
          : null;
      return h(
        'li',
        {
          class: `problem sev-${p.severity}`,
          'data-testid': 'problem',
          'data-code': p.code,
          'data-severity': p.severity,
          'data-source': p.source,
        },
        h(
          'div',
          { class: 'row problem-head' },
          badge(
            severityLabel(p.severity),
            p.severity === 'error' ? 'error' : p.severity === 'warning' ? 'warning' : 'info',
          ),
          h('code', { class: 'small' }, p.code),
          h('span', { class: 'grow' }),
          owner,
          p.file
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'btn btn-small',
                  'data-testid': 'problem-open',
                  onclick: () => void this.open(p),
                },
                t('problems.open'),
              )
            : null,
        ),
        h('p', { class: 'problem-message' }, p.message),
        where ? h('p', { class: 'mono small muted', 'data-testid': 'problem-where' }, where) : null,
      );
    });
    mount(
      this.body,
      filters,
      this.opened
        ? h('p', { class: 'notice notice-info small', 'data-testid': 'problems-opened', role: 'status' }, this.opened)
        : null,
      h(
        'p',
        { class: 'muted small', 'data-testid': 'problems-count' },
        t('problems.count', { n: shown.length, all: all.length }),
      ),
      all.length
        ? h('ul', { class: 'plain problems-list' }, ...rows)
        : h('p', { class: 'notice notice-ok', 'data-testid': 'problems-none' }, t('problems.none')),
    );
  }

  private showSkill(id: string): void {
    const entry = this.ix?.doc.skills.find((s) => s.id === id);
    if (entry) this.ctx.showSkill(entry);
  }
}
