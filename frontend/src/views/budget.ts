// What a set costs and whether its servers answer (issue 15, item 3): the Context card of a target
// (Assignments) and of a plugin (its detail view). Budget(target | dir, backend) predicts what the
// launch puts in front of the model — the skill listing as the client renders it, and the MCP tool
// definitions from the servers' last checks — and lists the launch's MCP servers with a health dot
// each; Check now runs CheckMCP, whose mcp:progress events say which server is starting. The card
// shows counts, names and sanitised errors only: the backend never sends an env or header value.

import { ApiError, api, errorText, on } from '../bridge';
import { h } from '../dom';
import { fmtDateTime, type Key, t } from '../i18n';
import type { BudgetReport, BudgetState, MCPHealth } from '../types';
import { backendSelect, labelOwnBackend, type LaunchSubject, subjectKey } from './subject';

const SOURCE_LABEL: Record<string, Key> = {
  target: 'budget.source.target',
  user: 'budget.source.user',
  project: 'budget.source.project',
  client: 'budget.source.client',
};

const MCP_MODE: Record<string, Key> = {
  inline: 'budget.mode.inline',
  deferred: 'budget.mode.deferred',
  gateway: 'budget.mode.gateway',
};

export class BudgetPanel {
  readonly el: HTMLElement;
  private readonly select: HTMLSelectElement;
  private readonly checkButton: HTMLButtonElement;
  private readonly body: HTMLElement;
  private readonly status: HTMLElement;
  private subject: LaunchSubject | null = null;
  private version = '';
  /** The state shown, for the subject and backend it belongs to. */
  private state: { key: string; res?: BudgetState; error?: string } | null = null;
  private checking = false;
  private progress = '';
  private seq = 0;

  constructor(idPrefix: string) {
    this.select = backendSelect({
      'aria-label': t('budget.agentLabel'),
      'data-testid': 'budget-backend',
      onchange: () => void this.load(),
    });
    this.checkButton = h(
      'button',
      { type: 'button', class: 'btn', 'data-testid': 'mcp-check', onclick: () => void this.check() },
      t('budget.check'),
    );
    this.status = h('span', { class: 'muted small', role: 'status', 'data-testid': 'mcp-check-status' });
    this.body = h('div', { 'data-testid': 'budget-body', 'aria-live': 'polite' });
    this.el = h(
      'section',
      { class: 'card budget-card', 'data-testid': 'budget', 'aria-labelledby': `${idPrefix}-h` },
      h('h3', { id: `${idPrefix}-h` }, t('budget.title')),
      h('p', { class: 'muted small' }, t('budget.help')),
      h('div', { class: 'row' }, this.select, this.checkButton, this.status),
      this.body,
    );
    on('mcp:progress', (ev) => {
      if (!this.checking) return;
      this.progress = ev.next
        ? t('budget.progress', { name: ev.next, done: ev.done + 1, total: ev.total })
        : t('budget.checked');
      this.status.textContent = this.progress;
    });
    this.render();
  }

  /**
   * Shows the card for a subject; a new subject, or a new version of the catalog (a rescan or a live
   * reload), measures again.
   */
  set(subject: LaunchSubject | null, version: string, ownBackend = ''): void {
    const changed = subjectKey(subject) !== subjectKey(this.subject) || version !== this.version;
    this.subject = subject;
    this.version = version;
    labelOwnBackend(this.select, subject, ownBackend);
    if (changed) void this.load();
    else this.render();
  }

  private key(): string {
    return `${subjectKey(this.subject)}|${this.select.value}`;
  }

  private async load(): Promise<void> {
    const s = this.subject;
    const seq = ++this.seq;
    if (!s) {
      this.state = null;
      this.render();
      return;
    }
    const key = this.key();
    try {
      const res = await api.budget(s.target ?? '', s.dir ?? '', this.select.value);
      if (seq === this.seq) this.state = { key, res };
    } catch (e) {
      if (seq === this.seq) this.state = { key, error: errorText(e) };
    }
    if (seq === this.seq) this.render();
  }

  private async check(): Promise<void> {
    const s = this.subject;
    if (!s || this.checking) return;
    this.checking = true;
    this.progress = t('budget.starting');
    this.render();
    try {
      await api.checkMCP(s.target ?? '', s.dir ?? '');
      this.progress = '';
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError('transport', errorText(e));
      this.progress = t('budget.checkFailed', { msg: err.message });
    } finally {
      this.checking = false;
    }
    await this.load();
  }

  private render(): void {
    const none = !this.subject;
    this.select.disabled = none;
    const st = this.state;
    const servers = st?.res?.servers ?? [];
    this.checkButton.disabled = none || this.checking || !servers.length;
    this.checkButton.textContent = t(this.checking ? 'budget.checking' : 'budget.check');
    this.status.textContent = this.progress;
    if (!st || st.key !== this.key()) {
      this.body.replaceChildren(none ? '' : h('p', { class: 'muted small' }, t('budget.measuring')));
      return;
    }
    if (st.error !== undefined) {
      this.body.replaceChildren(h('p', { class: 'notice notice-error', 'data-testid': 'budget-error' }, st.error));
      return;
    }
    const r = st.res!.report;
    this.body.replaceChildren(
      bar(r),
      ...listing(r),
      mcpPart(r, servers, (hc) => void this.acknowledge(hc)),
    );
  }

  /** Acknowledges one server as the check saw it (its digest), then measures again. */
  private async acknowledge(hc: MCPHealth): Promise<void> {
    if (!hc.ackTarget) return;
    this.progress = '';
    try {
      await api.acknowledge(hc.ackTarget, [{ plugin: hc.plugin, server: hc.name, digest: hc.digest ?? '' }]);
    } catch (e) {
      this.progress = t('budget.ackFailed', { msg: errorText(e) });
    }
    await this.load();
  }
}

/** The stacked bar: the skill listing by source, then the MCP tools, in estimated tokens. */
function bar(r: BudgetReport): HTMLElement {
  const parts: { label: string; chars: number; cls: string }[] = [];
  let listed = 0;
  for (const src of ['target', 'user', 'project', 'client']) {
    const c = r.skills.bySource[src] ?? 0;
    listed += c;
    if (c) parts.push({ label: t(SOURCE_LABEL[src]), chars: c, cls: `seg-${src}` });
  }
  const header = r.skills.chars - listed;
  if (header > 0) parts.push({ label: t('budget.source.header'), chars: header, cls: 'seg-header' });
  if (r.mcp.chars) parts.push({ label: t('budget.source.mcp'), chars: r.mcp.chars, cls: 'seg-mcp' });
  const total = parts.reduce((n, p) => n + p.chars, 0) || 1;
  const tokens = (c: number) => Math.round(c / 4);
  return h(
    'div',
    { class: 'budget' },
    h(
      'p',
      { class: 'budget-total', 'data-testid': 'budget-total' },
      h('strong', null, t('budget.total.tokens', { n: r.total })),
      t(r.mcp.tokens !== null ? 'budget.total.known' : r.mcp.chars ? 'budget.total.atLeast' : 'budget.total.unknown', {
        backend: r.backend === 'pi' ? 'PI' : 'Claude Code', // i18n-ignore: product names
        chars: r.skills.chars,
        mcp: r.mcp.chars,
        unchecked: r.mcp.unchecked.length,
      }),
    ),
    h(
      'div',
      {
        class: 'budget-bar',
        role: 'img',
        'aria-label': parts
          .map((p) => t('budget.bar.part', { label: p.label, n: tokens(p.chars) }))
          .join(t('budget.bar.sep')),
      },
      ...parts.map((p) =>
        h('span', {
          class: `budget-seg ${p.cls}`,
          style: `width: ${((100 * p.chars) / total).toFixed(2)}%`,
          title: t('budget.bar.title', { label: p.label, chars: p.chars, n: tokens(p.chars) }),
        }),
      ),
    ),
    h(
      'ul',
      { class: 'plain budget-legend small' },
      ...parts.map((p) =>
        h(
          'li',
          { 'data-part': p.cls },
          h('span', { class: `budget-key ${p.cls}`, 'aria-hidden': 'true' }),
          t('budget.legend', { label: p.label, n: tokens(p.chars) }),
        ),
      ),
    ),
    h('p', { class: 'muted small' }, t('budget.notCounted')),
  );
}

/** The client's listing budget (Claude: characters; Codex: tokens), and the skills it shortens. */
function listing(r: BudgetReport): HTMLElement[] {
  const s = r.skills;
  const codex = r.backend === 'codex';
  const out: HTMLElement[] = [];
  if (s.budget) {
    const key = codex ? 'budget.listing.codex' : s.mode === 'fits' ? 'budget.listing.fits' : 'budget.listing.over';
    out.push(
      h(
        'p',
        { class: 'small', 'data-testid': 'budget-listing' },
        t(key, { chars: s.chars, tokens: s.tokens, budget: s.budget, entries: s.listed.length }),
      ),
    );
  }
  if (s.cut.length) {
    const cutKey = !codex ? 'budget.cut' : s.mode === 'omitted' ? 'budget.cut.omitted' : 'budget.cut.shortened';
    out.push(
      h(
        'div',
        { class: 'notice notice-warning', 'data-testid': 'budget-cut' },
        h('p', null, t(cutKey, { n: s.cut.length })),
        h('ul', { class: 'plain mono small' }, ...s.cut.map((n) => h('li', { 'data-skill': n }, n))),
      ),
    );
  }
  return out;
}

/** The MCP servers: a health dot each, its tools, and what the client sends for them. */
function mcpPart(r: BudgetReport, servers: MCPHealth[], onAck: (hc: MCPHealth) => void): HTMLElement {
  const m = r.mcp;
  const byName = new Map(servers.map((s) => [s.name, s]));
  // The launch's servers, then those it leaves out (not acknowledged for it), with their checks.
  const rows = [...m.servers.map((s) => ({ name: s.name, plugin: s.plugin, checked: s.checked }))];
  for (const s of servers)
    if (!rows.some((r) => r.name === s.name)) rows.push({ name: s.name, plugin: s.plugin, checked: s.checked });
  if (!rows.length) return h('p', { class: 'muted small', 'data-testid': 'budget-mcp' }, t('budget.mcp.none'));
  return h(
    'div',
    { 'data-testid': 'budget-mcp' },
    h('h4', null, t('budget.mcp.title')),
    h('p', { class: 'muted small' }, MCP_MODE[m.mode] ? t(MCP_MODE[m.mode]) : m.mode),
    h(
      'ul',
      { class: 'plain health-list' },
      ...rows.map((s) => {
        const hc = byName.get(s.name);
        const [state, text] =
          !hc && s.name.startsWith('plugin:') ? ['unknown', t('budget.health.legacy')] : health(hc, s.checked);
        return h(
          'li',
          { class: 'health', 'data-testid': 'mcp-health', 'data-server': s.name, 'data-state': state },
          h('span', { class: `dot dot-${state}`, 'aria-hidden': 'true' }),
          h('strong', { class: 'mono' }, s.name),
          s.plugin ? h('span', { class: 'muted small' }, ` ${s.plugin}`) : null,
          h('span', { class: 'small' }, ` — ${text}`),
          hc?.notAcknowledged && hc.ackTarget
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'btn btn-small',
                  'data-testid': 'mcp-ack',
                  title: t('budget.ackTitle', { server: s.name }),
                  onclick: () => onAck(hc),
                },
                t('budget.ack'),
              )
            : null,
          hc?.ok && hc.tools.length
            ? h(
                'div',
                { class: 'mono small muted', 'data-testid': 'mcp-tools' },
                hc.tools.map((t) => t.name).join(', '),
              )
            : null,
          hc && !hc.ok && hc.stderr
            ? h(
                'details',
                { class: 'small' },
                h('summary', null, 'stderr') /* i18n-ignore: the stream's name */,
                h('pre', { class: 'wrap' }, hc.stderr),
              )
            : null,
        );
      }),
    ),
  );
}

function health(hc: MCPHealth | undefined, checked: boolean): [string, string] {
  const unacked = hc?.notAcknowledged ? t('budget.health.notAcked') : '';
  if (!hc || !checked) return unacked ? ['ack', unacked] : ['unknown', t('budget.health.unchecked')];
  const when = hc.checkedAt ? t('budget.health.checkedAt', { date: fmtDateTime(hc.checkedAt) }) : '';
  const tail = unacked ? ` · ${unacked}` : '';
  if (hc.ok) {
    const n = hc.tools.length;
    const ok = hc.serverInfo
      ? t('budget.health.okInfo', { name: hc.serverInfo.name, version: hc.serverInfo.version, n, ms: hc.readyMs })
      : t('budget.health.ok', { n, ms: hc.readyMs });
    const cut = hc.truncated?.length ? t('budget.health.truncated', { what: hc.truncated.join(', ') }) : ''; // i18n-ignore: list names
    return ['ok', `${ok}${cut}${when}${tail}`];
  }
  return ['failed', `${t('budget.health.failed', { msg: hc.error ?? t('budget.health.noAnswer') })}${when}${tail}`];
}
