// Activity (R8): which skills the agents Plugboard launched really invoked (uses, a small chart of
// uses per day, last use, per target) over 7, 30 or 90 days or all time; which MCP tools they called
// through Plugboard's relay; the assigned skills no launch of their target used in the period; and
// the plugins assigned for 30 days or more whose skills the target never used, each with a one-click
// Remove that goes through the Assignments tab's guarded save (Assign with the target file's hash:
// a file changed on disk since it was read is refused as stale and nothing is written; the save is
// recorded in the history like every other). Export CSV saves the period's skills and tools: a
// download in a browser, the window's save dialog in the desktop app (Wails v2's Linux window
// handles no WebKitGTK download: a Blob behind <a download> would at best land in ~/Downloads
// unasked and unreported).
//
// The "assigned for 30 days" list is always read over all time, whatever the period: a skill used
// 40 days ago was used since it was assigned, even when the period shows the last 7 days.

import { api, ApiError, errorText, isDesktop } from '../bridge';
import { h, mount } from '../dom';
import { fmtDate, fmtDateTime, fmtNumber, t } from '../i18n';
import type { CatalogIndex } from '../search';
import type { ActivityReport, SkillUse, Target, ToolUse, UnusedSkill } from '../types';

/** The periods offered, in days (0: all time). */
const RANGES = [7, 30, 90, 0];

/** How long a plugin must have been assigned, never used, before the view offers to remove it. */
export const UNUSED_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;
const SVG = 'http://www.w3.org/2000/svg';

function when(time: string | null): string {
  if (!time || time.startsWith('0001-')) return t('activity.notRecorded');
  return fmtDateTime(time);
}

/**
 * The message text with its {name} placeholders replaced by the given nodes (a <code> in the middle
 * of a sentence), so a language can put them in its own order.
 */
function withNodes(text: string, nodes: Record<string, Node>): Array<Node | string> {
  return text
    .split(/(\{\w+\})/)
    .filter((part) => part !== '')
    .map((part) => {
      const m = /^\{(\w+)\}$/.exec(part);
      return m && nodes[m[1]] ? nodes[m[1]] : part;
    });
}

/** The local date of d as the report's byDay writes it ("YYYY-MM-DD"). */
export function dayKey(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

function fromKey(key: string): Date {
  const [y, m, d] = key.split('-').map(Number);
  return new Date(y, m - 1, d);
}

function shortDate(d: Date): string {
  return fmtDate(d, { day: 'numeric', month: 'short', year: 'numeric' });
}

/** One bar of a chart: the days from `from` (a byDay key) up to the next bucket's. */
interface Bucket {
  key: string;
  label: string;
  days: Set<string>;
}

/**
 * The chart's bars, shared by every skill so that the charts line up. A period of N days has a bar
 * per local day from the day N×24 hours ago (a partial day) to today. All time has a bar per week
 * (weeks start on Monday) from the week of the first recorded use, or per month when that is more
 * than two years of weeks.
 */
export function buckets(
  days: number,
  skills: SkillUse[],
  now: Date,
): { unit: 'day' | 'week' | 'month'; bars: Bucket[] } {
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const keys = skills.flatMap((s) => Object.keys(s.byDay ?? {})).sort();
  let first: Date;
  if (days > 0) {
    const start = new Date(now.getTime() - days * DAY_MS);
    first = new Date(start.getFullYear(), start.getMonth(), start.getDate());
  } else {
    first = keys.length ? fromKey(keys[0]) : today;
  }
  if (keys.length && keys[0] < dayKey(first)) first = fromKey(keys[0]); // a clock that moved back
  let unit: 'day' | 'week' | 'month' = 'day';
  if (days <= 0) {
    unit = (today.getTime() - first.getTime()) / DAY_MS > 104 * 7 ? 'month' : 'week';
    if (unit === 'week') first.setDate(first.getDate() - ((first.getDay() + 6) % 7));
    else first.setDate(1);
  }
  const bars: Bucket[] = [];
  const d = new Date(first);
  while (d <= today) {
    const start = new Date(d);
    if (unit === 'day') d.setDate(d.getDate() + 1);
    else if (unit === 'week') d.setDate(d.getDate() + 7);
    else d.setMonth(d.getMonth() + 1);
    const set = new Set<string>();
    for (const x = new Date(start); x < d; x.setDate(x.getDate() + 1)) set.add(dayKey(x));
    const label =
      unit === 'day'
        ? fmtDate(start, { weekday: 'short', day: 'numeric', month: 'short' })
        : unit === 'week'
          ? t('activity.chart.weekOf', { date: shortDate(start) })
          : fmtDate(start, { month: 'long', year: 'numeric' });
    bars.push({ key: dayKey(start), label, days: set });
  }
  return { unit, bars };
}

function svg(tag: string, attrs: Record<string, string | number>, ...children: Array<Node | string>): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/** A skill's small bar chart over the bars; its label says every non-zero bar's number. */
function chart(s: SkillUse, unit: 'day' | 'week' | 'month', bars: Bucket[], period: string): SVGElement {
  const counts = bars.map((b) => {
    let n = 0;
    for (const [day, c] of Object.entries(s.byDay ?? {})) if (b.days.has(day)) n += c;
    return n;
  });
  const max = Math.max(1, ...counts);
  const W = 160;
  const H = 28;
  const step = W / bars.length;
  const gap = step >= 4 ? Math.min(2, step / 4) : 0;
  const busy = bars.map((b, i) => ({ b, n: counts[i] })).filter((x) => x.n > 0);
  const quiet = bars.length - busy.length;
  const list = busy.length
    ? busy.map((x) => t(`activity.chart.busy.${unit}`, { n: x.n, bar: x.b.label })).join(t('activity.chart.sep'))
    : t('activity.chart.none');
  const label =
    t(`activity.chart.label.${unit}`, { id: s.id, period, list }) +
    (busy.length && quiet ? t(`activity.chart.quiet.${unit}`, { n: quiet }) : '');
  return svg(
    'svg',
    {
      class: 'spark',
      viewBox: `0 0 ${W} ${H}`,
      preserveAspectRatio: 'none',
      role: 'img',
      'aria-label': label,
      'data-testid': 'activity-chart',
      'data-unit': unit,
    },
    svg('line', { class: 'spark-base', x1: 0, y1: H - 0.5, x2: W, y2: H - 0.5 }),
    ...bars.map((b, i) => {
      const n = counts[i];
      const bh = n ? Math.max(2, (n / max) * (H - 2)) : 0;
      return svg(
        'rect',
        {
          class: 'spark-bar',
          x: i * step + gap / 2,
          y: H - bh,
          width: Math.max(step - gap, 0.5),
          height: bh,
          'data-day': b.key,
          'data-uses': n,
        },
        svg('title', {}, t('activity.chart.barTitle', { bar: b.label, n })),
      );
    }),
  );
}

/** The plugins of one target that the target never used, with how long they have been assigned. */
interface Stale {
  target: string;
  plugin: string;
  skills: string[];
  since: string | null;
  /** Skills of the plugin the target did use since it was assigned (then nothing is offered). */
  used: string[];
}

/**
 * Groups the all-time unused list by target and plugin. A skill the target used shows in the
 * report's skills with a count for that target and is not in the unused list (a use from before the
 * plugin was assigned again keeps it unused, and it counts as unused here too).
 */
export function staleAssignments(all: ActivityReport): Stale[] {
  const groups = new Map<string, Stale>();
  for (const u of all.unused ?? []) {
    const k = `${u.target}\u0000${u.plugin}`;
    let g = groups.get(k);
    if (!g) {
      g = { target: u.target, plugin: u.plugin, skills: [], since: u.assignedSince, used: [] };
      groups.set(k, g);
    }
    g.skills.push(u.id);
  }
  for (const g of groups.values()) {
    g.used = (all.skills ?? [])
      .filter((s) => s.plugin === g.plugin && (s.byTarget?.[g.target] ?? 0) > 0 && !g.skills.includes(s.id))
      .map((s) => s.id);
  }
  return [...groups.values()];
}

type Notice = { kind: 'ok' | 'error'; text: string } | null;

export class ActivityView {
  readonly el: HTMLElement;
  private readonly body: HTMLElement;
  private readonly range: HTMLSelectElement;
  private readonly exportBtn: HTMLButtonElement;
  private readonly status: HTMLElement;
  private report: ActivityReport | null = null;
  /** The all-time report, for the plugins assigned for 30 days (the same as report for "All time"). */
  private all: ActivityReport | null = null;
  private targets: Target[] = [];
  private targetsError = '';
  private error = '';
  private loading = false;
  private seq = 0;
  /** The remove being saved ("target\0plugin"), or an export: the buttons wait. */
  private busy = '';

  constructor() {
    this.range = h(
      'select',
      { 'data-testid': 'activity-range', 'aria-label': t('activity.period'), onchange: () => void this.load() },
      ...RANGES.map((days) =>
        h('option', { value: String(days) }, days ? t('activity.range.days', { n: days }) : t('activity.range.all')),
      ),
    ) as HTMLSelectElement;
    this.range.value = '30';
    this.exportBtn = h(
      'button',
      {
        type: 'button',
        class: 'btn',
        'data-testid': 'activity-export',
        title: t('activity.export.title'),
        onclick: () => void this.exportCSV(),
      },
      t('activity.export'),
    );
    this.status = h('p', { class: 'notice', role: 'status', 'aria-live': 'polite', 'data-testid': 'activity-status' });
    this.status.hidden = true;
    this.body = h('div', { 'data-testid': 'activity-body', class: 'activity-body' });
    this.el = h(
      'div',
      { class: 'pane pane-detail activity-page', 'data-testid': 'activity' },
      h(
        'div',
        { class: 'detail-body' },
        h('h2', null, t('activity.title')),
        h('p', { class: 'muted' }, t('activity.intro')),
        h(
          'div',
          { class: 'row activity-bar' },
          h('label', { class: 'inline' }, t('activity.period'), ' ', this.range),
          h('span', { class: 'grow' }),
          this.exportBtn,
        ),
        this.status,
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

  private get days(): number {
    return Number(this.range.value);
  }

  private periodText(): string {
    return this.days ? t('activity.period.last', { n: this.days }) : t('activity.period.all');
  }

  /** Reads the period's report, the all-time one and the targets (their hashes guard a remove). */
  private async load(): Promise<void> {
    const seq = ++this.seq;
    const days = this.days;
    this.loading = true;
    this.body.dataset.loading = 'true';
    this.render();
    const [rep, all, targets] = await Promise.allSettled([
      api.activity(days),
      days === 0 ? null : api.activity(0),
      api.targets(),
    ]);
    if (seq !== this.seq) return; // a later load (another period) answers instead
    if (rep.status === 'fulfilled') {
      this.report = rep.value;
      this.error = '';
    } else {
      this.error = errorText(rep.reason);
    }
    this.all = all.status === 'fulfilled' ? (all.value ?? this.report) : null;
    if (targets.status === 'fulfilled') {
      this.targets = targets.value.targets ?? [];
      this.targetsError = '';
    } else {
      this.targetsError = errorText(targets.reason);
    }
    this.loading = false;
    // what the body shows, for whoever waits for it (the tests): the period, and not loading
    this.body.dataset.days = String(days);
    delete this.body.dataset.loading;
    this.render();
  }

  private say(n: Notice): void {
    this.status.hidden = !n;
    this.status.className = `notice${n ? ` notice-${n.kind}` : ''}`;
    this.status.dataset.kind = n?.kind ?? '';
    this.status.textContent = n?.text ?? '';
  }

  // ---- remove ------------------------------------------------------------------------------------
  /** Removes plugin from target with Assign and the hash the targets were read with. */
  private async remove(target: Target, plugin: string): Promise<void> {
    if (this.busy) return;
    this.busy = `${target.id}\u0000${plugin}`;
    this.say(null);
    this.render();
    try {
      const res = await api.assign(target.id, { remove: [plugin] }, target.hash, false);
      this.say({
        kind: 'ok',
        text: t('activity.stale.removed', { plugin, target: target.id, id: String(res.history) }),
      });
    } catch (e) {
      if (e instanceof ApiError && e.code === 'stale') {
        this.say({ kind: 'error', text: t('activity.stale.notRemovedStale', { target: target.id }) });
      } else if (e instanceof ApiError && e.code === 'refused') {
        this.say({ kind: 'error', text: t('activity.stale.notRemovedRefused', { msg: e.message }) });
      } else {
        this.say({ kind: 'error', text: t('activity.stale.notRemoved', { msg: errorText(e) }) });
      }
    } finally {
      this.busy = '';
    }
    await this.load();
  }

  // ---- export --------------------------------------------------------------------------------------
  private async exportCSV(): Promise<void> {
    if (this.busy) return;
    const days = this.days;
    this.busy = 'export';
    this.exportBtn.disabled = true;
    try {
      if (isDesktop()) {
        const path = await api.saveActivityCSV(days);
        if (path) this.say({ kind: 'ok', text: t('activity.export.saved', { period: this.periodText(), path }) });
      } else {
        const text = await api.activityCSV(days);
        const name = `plugboard-activity-${days ? `${days}-days` : 'all-time'}-${dayKey(new Date())}.csv`;
        const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
        const a = h('a', { href: url, download: name, hidden: true });
        document.body.append(a);
        a.click();
        a.remove();
        // the download has read the blob by the time the page is idle again
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
      }
    } catch (e) {
      this.say({ kind: 'error', text: t('activity.export.failed', { msg: errorText(e) }) });
    } finally {
      this.busy = '';
      this.exportBtn.disabled = false;
    }
  }

  // ---- rendering -----------------------------------------------------------------------------------
  private render(): void {
    this.exportBtn.disabled = !!this.busy || !this.report;
    if (this.error) {
      mount(
        this.body,
        h('p', { class: 'notice notice-error', role: 'alert' }, t('activity.cannotRead', { msg: this.error })),
      );
      return;
    }
    const r = this.report;
    if (!r) {
      mount(this.body, h('p', { class: 'muted' }, this.loading ? t('activity.loading') : ''));
      return;
    }
    mount(
      this.body,
      this.renderSkills(r.skills ?? []),
      this.renderTools(r.tools ?? []),
      this.renderStale(),
      this.renderUnused(r.unused ?? []),
    );
  }

  private renderSkills(skills: SkillUse[]): HTMLElement {
    const { unit, bars } = buckets(this.days, skills, new Date());
    const per = t(
      ({ day: 'activity.skills.perDay', week: 'activity.skills.perWeek', month: 'activity.skills.perMonth' } as const)[
        unit
      ],
    );
    const table = skills.length
      ? h(
          'table',
          { class: 'data-table', 'data-testid': 'activity-skills' },
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              h('th', null, t('activity.skills.skill')),
              h('th', { class: 'num' }, t('activity.skills.uses')),
              h('th', null, per),
              h('th', null, t('activity.skills.last')),
              h('th', null, t('activity.skills.byTarget')),
            ),
          ),
          h(
            'tbody',
            null,
            ...skills.map((s) =>
              h(
                'tr',
                { 'data-testid': 'activity-skill', 'data-id': s.id, 'data-plugin': s.plugin },
                h('td', { class: 'mono' }, s.id),
                h('td', { class: 'num', 'data-testid': 'activity-uses' }, fmtNumber(s.uses)),
                h('td', { class: 'spark-cell' }, chart(s, unit, bars, this.periodText())),
                h('td', { class: 'small' }, when(s.last)),
                h(
                  'td',
                  { class: 'muted small' },
                  Object.entries(s.byTarget ?? {})
                    .sort(([a], [b]) => a.localeCompare(b))
                    .map(([target, n]) => t('activity.skills.byTargetItem', { target, n }))
                    .join(', '),
                ),
              ),
            ),
          ),
        )
      : h('p', { class: 'muted', 'data-testid': 'activity-none' }, t('activity.skills.none'));
    const note = t(`activity.skills.note.${unit}`);
    return h(
      'section',
      { class: 'card' },
      h('h3', null, t('activity.skills.title', { n: skills.length })),
      skills.length ? h('p', { class: 'muted small' }, note) : null,
      table,
    );
  }

  private renderTools(tools: ToolUse[]): HTMLElement | null {
    if (!tools.length) return null;
    return h(
      'section',
      { class: 'card' },
      h('h3', null, t('activity.tools.title', { n: tools.length })),
      h(
        'table',
        { class: 'data-table', 'data-testid': 'activity-tools' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', null, t('activity.tools.server')),
            h('th', null, t('activity.tools.plugin')),
            h('th', null, t('activity.tools.tool')),
            h('th', { class: 'num' }, t('activity.tools.calls')),
            h('th', { class: 'num' }, t('activity.tools.errors')),
            h('th', { class: 'num' }, t('activity.tools.median')),
            h('th', null, t('activity.tools.last')),
          ),
        ),
        h(
          'tbody',
          null,
          ...tools.map((tool) =>
            h(
              'tr',
              { 'data-testid': 'activity-tool', 'data-server': tool.server, 'data-tool': tool.tool },
              h('td', { class: 'mono', 'data-testid': 'tool-server' }, tool.server),
              h('td', { class: 'mono', 'data-testid': 'tool-plugin' }, tool.plugin),
              h('td', { class: 'mono', 'data-testid': 'tool-name' }, tool.tool),
              h('td', { class: 'num', 'data-testid': 'tool-calls' }, fmtNumber(tool.calls)),
              h(
                'td',
                { class: `num${tool.errors ? ' error-text' : ''}`, 'data-testid': 'tool-errors' },
                fmtNumber(tool.errors),
              ),
              h('td', { class: 'num', 'data-testid': 'tool-p50' }, t('activity.tools.ms', { n: tool.p50ms })),
              h('td', { class: 'small' }, when(tool.last)),
            ),
          ),
        ),
      ),
    );
  }

  /** Assigned for 30 days or more (or since before the history began), never used by the target. */
  private renderStale(): HTMLElement {
    const all = this.all;
    const head = h('h3', null, t('activity.stale.title', { n: UNUSED_DAYS }));
    if (!all)
      return h(
        'section',
        { class: 'card' },
        head,
        h('p', { class: 'muted' }, this.loading ? t('activity.loading') : t('activity.stale.notRead')),
      );
    const cutoff = Date.now() - UNUSED_DAYS * DAY_MS;
    const groups = staleAssignments(all);
    // a plugin some of whose skills the target used is not "never used": the period's list below has its other skills
    const unusedAll = groups.filter((g) => !g.used.length);
    const old = unusedAll.filter((g) => g.since !== null && new Date(g.since).getTime() <= cutoff);
    const unknown = unusedAll.filter((g) => g.since === null);
    const byId = new Map(this.targets.map((target) => [target.id, target]));
    const item = (g: Stale) => {
      const tg = byId.get(g.target);
      const key = `${g.target}\u0000${g.plugin}`;
      let action: Node | null = null;
      let why = '';
      if (g.since === null) {
        why = t('activity.stale.why.beforeHistory');
      } else if (!tg) {
        why = this.targetsError
          ? t('activity.stale.why.targetsError', { msg: this.targetsError })
          : t('activity.stale.why.gone');
      } else if (tg.readOnly || tg.kind === 'shell-binding' || tg.kind === 'active') {
        why = t('activity.stale.why.readOnly');
      } else if (tg.kind === 'template-slot' && tg.inherits) {
        why = t('activity.stale.why.inherits', { ref: tg.ref ?? '', plugin: g.plugin });
      } else if (!tg.managed.includes(g.plugin)) {
        why = t('activity.stale.why.notEntry');
      } else {
        action = h(
          'button',
          {
            type: 'button',
            class: 'btn btn-small',
            'data-testid': 'activity-remove',
            disabled: !!this.busy || this.loading,
            'aria-busy': this.busy === key ? 'true' : undefined,
            title: t('activity.stale.removeTitle', { plugin: g.plugin, file: tg.file }),
            onclick: () => void this.remove(tg, g.plugin),
          },
          this.busy === key ? t('activity.stale.removing') : t('activity.stale.remove', { target: g.target }),
        );
      }
      const days = g.since === null ? 0 : Math.floor((Date.now() - new Date(g.since).getTime()) / DAY_MS);
      return h(
        'li',
        { class: 'stale-item', 'data-testid': 'activity-stale', 'data-target': g.target, 'data-plugin': g.plugin },
        h(
          'div',
          { class: 'row' },
          h(
            'span',
            { class: 'grow' },
            ...withNodes(t('activity.stale.item'), {
              plugin: h('code', null, g.plugin),
              target: h('code', null, g.target),
            }),
          ),
          action,
        ),
        h(
          'p',
          { class: 'muted small' },
          g.since === null ? '' : t('activity.stale.assigned', { date: shortDate(new Date(g.since)), n: days }),
          t('activity.stale.neverUsed', { skills: g.skills.join(', ') }),
        ),
        why ? h('p', { class: 'muted small', 'data-testid': 'activity-stale-why' }, why) : null,
      );
    };
    return h(
      'section',
      { class: 'card', 'data-testid': 'activity-stale-list' },
      head,
      h('p', { class: 'muted small' }, t('activity.stale.help')),
      old.length
        ? h('ul', { class: 'plain stale-list' }, ...old.map(item))
        : h(
            'p',
            { class: 'muted', 'data-testid': 'activity-stale-none' },
            t('activity.stale.none', { n: UNUSED_DAYS }),
          ),
      unknown.length ? h('h4', null, t('activity.stale.beforeHistoryTitle')) : null,
      unknown.length ? h('ul', { class: 'plain stale-list' }, ...unknown.map(item)) : null,
    );
  }

  private renderUnused(unused: UnusedSkill[]): HTMLElement {
    const never = unused.length
      ? h(
          'ul',
          { class: 'plain', 'data-testid': 'activity-unused' },
          ...unused.map((u) =>
            h(
              'li',
              { 'data-testid': 'activity-unused-skill', 'data-id': u.id, 'data-target': u.target },
              ...withNodes(t('activity.unused.item'), {
                skill: h('code', null, u.id),
                target: h('code', null, u.target),
              }),
              h(
                'span',
                { class: 'muted small' },
                u.assignedSince
                  ? t('activity.unused.assigned', { date: when(u.assignedSince) })
                  : t('activity.unused.beforeHistory'),
              ),
            ),
          ),
        )
      : h('p', { class: 'muted' }, t('activity.unused.none'));
    return h('section', { class: 'card' }, h('h3', null, t('activity.unused.title', { n: unused.length })), never);
  }
}
