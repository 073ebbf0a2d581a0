// Activity (R8): which skills the agents Plugboard launched really invoked (Activity: uses, last
// use, per target), over 7, 30 or 90 days or all time, and which assigned skills no launch of their
// target ever used since they were assigned. Claude launches record through hooks; PI records
// nothing yet, and MCP tool calls are not counted yet, and the view says so.

import { api, errorText } from '../bridge';
import { h, mount, plural } from '../dom';
import type { CatalogIndex } from '../search';
import type { ActivityReport } from '../types';

const RANGES: Array<{ days: number; label: string }> = [
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
  { days: 0, label: 'All time' },
];

function when(t: string | null): string {
  if (!t) return 'not recorded';
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? t : d.toLocaleString();
}

export class ActivityView {
  readonly el: HTMLElement;
  private readonly body: HTMLElement;
  private readonly range: HTMLSelectElement;
  private report: ActivityReport | null = null;
  private error = '';
  private loading = false;

  constructor() {
    this.range = h(
      'select',
      { 'data-testid': 'activity-range', 'aria-label': 'Period', onchange: () => void this.load() },
      ...RANGES.map((r) => h('option', { value: String(r.days) }, r.label)),
    ) as HTMLSelectElement;
    this.range.value = '30';
    this.body = h('div', { 'data-testid': 'activity-body' });
    this.el = h(
      'div',
      { class: 'pane pane-detail activity-page', 'data-testid': 'activity' },
      h(
        'div',
        { class: 'detail-body' },
        h('h2', null, 'Skill activity'),
        h(
          'p',
          { class: 'muted' },
          'What the agents started by Plugboard invoked: the model through its Skill tool, you through a slash command. ' +
            'Claude Code launches are recorded; PI launches and MCP tool calls are not recorded yet.',
        ),
        h('label', { class: 'inline' }, 'Period ', this.range),
        this.body,
      ),
    );
  }

  setIndex(_ix: CatalogIndex): void {
    void this.load();
  }

  activate(): void {
    void this.load();
  }

  private async load(): Promise<void> {
    this.loading = true;
    this.render();
    try {
      this.report = await api.activity(Number(this.range.value));
      this.error = '';
    } catch (e) {
      this.error = errorText(e);
    }
    this.loading = false;
    this.render();
  }

  private render(): void {
    if (this.error) {
      mount(
        this.body,
        h('p', { class: 'notice notice-error', role: 'alert' }, `Cannot read the activity: ${this.error}`),
      );
      return;
    }
    const r = this.report;
    if (!r) {
      mount(this.body, h('p', { class: 'muted' }, this.loading ? 'Loading…' : ''));
      return;
    }
    const skills = r.skills ?? [];
    const unused = r.unused ?? [];
    const used = skills.length
      ? h(
          'table',
          { class: 'table', 'data-testid': 'activity-skills' },
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              h('th', null, 'Skill'),
              h('th', null, 'Uses'),
              h('th', null, 'Last'),
              h('th', null, 'By target'),
            ),
          ),
          h(
            'tbody',
            null,
            ...skills.map((s) =>
              h(
                'tr',
                { 'data-testid': 'activity-skill', 'data-id': s.id },
                h('td', { class: 'mono' }, s.id),
                h('td', { 'data-testid': 'activity-uses' }, String(s.uses)),
                h('td', null, when(s.last)),
                h(
                  'td',
                  { class: 'muted small' },
                  Object.entries(s.byTarget ?? {})
                    .map(([t, n]) => `${t} ${n}`)
                    .join(', '),
                ),
              ),
            ),
          ),
        )
      : h('p', { class: 'muted', 'data-testid': 'activity-none' }, 'No skill was invoked in this period.');
    const never = unused.length
      ? h(
          'ul',
          { class: 'plain', 'data-testid': 'activity-unused' },
          ...unused.map((u) =>
            h(
              'li',
              { 'data-testid': 'activity-unused-skill', 'data-id': u.id, 'data-target': u.target },
              h('code', null, u.id),
              ' on ',
              h('code', null, u.target),
              h(
                'span',
                { class: 'muted small' },
                u.assignedSince ? ` · assigned ${when(u.assignedSince)}` : ' · assigned before the history began',
              ),
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'Every assigned skill was used.');
    mount(
      this.body,
      h('section', { class: 'card' }, h('h3', null, `Used (${plural(skills.length, 'skill')})`), used),
      h('section', { class: 'card' }, h('h3', null, `Assigned, never used (${unused.length})`), never),
    );
  }
}
