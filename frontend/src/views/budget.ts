// What a set costs and whether its servers answer (issue 15, item 3): the Context card of a target
// (Assignments) and of a plugin (its detail view). Budget(target | dir, backend) predicts what the
// launch puts in front of the model — the skill listing as the client renders it, and the MCP tool
// definitions from the servers' last checks — and lists the launch's MCP servers with a health dot
// each; Check now runs CheckMCP, whose mcp:progress events say which server is starting. The card
// shows counts, names and sanitised errors only: the backend never sends an env or header value.

import { ApiError, api, errorText, on } from '../bridge';
import { h } from '../dom';
import type { BudgetReport, BudgetState, MCPHealth } from '../types';
import { backendSelect, labelOwnBackend, type LaunchSubject, subjectKey } from './subject';

const SOURCE_LABEL: Record<string, string> = {
  target: 'this set’s skills',
  user: 'your own skills',
  project: 'the project’s skills',
  client: 'the client’s own',
};

const MCP_MODE: Record<string, string> = {
  inline: 'Claude sends every tool’s definition',
  deferred: 'Claude’s tool search: the model sees tool names, and a definition once it searches for it',
  gateway:
    'PI’s MCP adapter: one mcp tool and one proxy tool per server; the model lists their tools when it needs them',
};

const fmt = (n: number) => n.toLocaleString();

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
      'aria-label': 'Agent to measure for',
      'data-testid': 'budget-backend',
      onchange: () => void this.load(),
    });
    this.checkButton = h(
      'button',
      { type: 'button', class: 'btn', 'data-testid': 'mcp-check', onclick: () => void this.check() },
      'Check now',
    );
    this.status = h('span', { class: 'muted small', role: 'status', 'data-testid': 'mcp-check-status' });
    this.body = h('div', { 'data-testid': 'budget-body', 'aria-live': 'polite' });
    this.el = h(
      'section',
      { class: 'card budget-card', 'data-testid': 'budget', 'aria-labelledby': `${idPrefix}-h` },
      h('h3', { id: `${idPrefix}-h` }, 'Context'),
      h(
        'p',
        { class: 'muted small' },
        'What a launch puts in front of the model before the first prompt, and whether its MCP servers answer. Tokens are estimated (characters / 4).',
      ),
      h('div', { class: 'row' }, this.select, this.checkButton, this.status),
      this.body,
    );
    on('mcp:progress', (ev) => {
      if (!this.checking) return;
      this.progress = ev.next ? `Checking ${ev.next} (${ev.done + 1} of ${ev.total})…` : 'Checked.';
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
    this.progress = 'Starting the servers…';
    this.render();
    try {
      await api.checkMCP(s.target ?? '', s.dir ?? '');
      this.progress = '';
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError('transport', errorText(e));
      this.progress = `The check failed: ${err.message}`;
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
    this.checkButton.textContent = this.checking ? 'Checking…' : 'Check now';
    this.status.textContent = this.progress;
    if (!st || st.key !== this.key()) {
      this.body.replaceChildren(none ? '' : h('p', { class: 'muted small' }, 'Measuring…'));
      return;
    }
    if (st.error !== undefined) {
      this.body.replaceChildren(h('p', { class: 'notice notice-error', 'data-testid': 'budget-error' }, st.error));
      return;
    }
    const r = st.res!.report;
    this.body.replaceChildren(bar(r), ...listing(r), mcpPart(r, servers));
  }
}

/** The stacked bar: the skill listing by source, then the MCP tools, in estimated tokens. */
function bar(r: BudgetReport): HTMLElement {
  const parts: { label: string; chars: number; cls: string }[] = [];
  let listed = 0;
  for (const src of ['target', 'user', 'project', 'client']) {
    const c = r.skills.bySource[src] ?? 0;
    listed += c;
    if (c) parts.push({ label: SOURCE_LABEL[src], chars: c, cls: `seg-${src}` });
  }
  const header = r.skills.chars - listed;
  if (header > 0) parts.push({ label: 'the listing’s header', chars: header, cls: 'seg-header' });
  if (r.mcp.chars) parts.push({ label: 'MCP tools', chars: r.mcp.chars, cls: 'seg-mcp' });
  const total = parts.reduce((n, p) => n + p.chars, 0) || 1;
  const tokens = (c: number) => Math.round(c / 4);
  return h(
    'div',
    { class: 'budget' },
    h(
      'p',
      { class: 'budget-total', 'data-testid': 'budget-total' },
      h('strong', null, `~${fmt(r.total)} tokens`),
      ` for ${r.backend === 'pi' ? 'PI' : 'Claude Code'}: skills ${fmt(r.skills.chars)} characters`,
      r.mcp.tokens !== null
        ? `, MCP tools ${fmt(r.mcp.chars)}`
        : r.mcp.chars
          ? `, MCP tools at least ${fmt(r.mcp.chars)} (${r.mcp.unchecked.length} not checked)`
          : ', MCP tools not known until checked',
    ),
    h(
      'div',
      {
        class: 'budget-bar',
        role: 'img',
        'aria-label': parts.map((p) => `${p.label} ~${fmt(tokens(p.chars))} tokens`).join(', '),
      },
      ...parts.map((p) =>
        h('span', {
          class: `budget-seg ${p.cls}`,
          style: `width: ${((100 * p.chars) / total).toFixed(2)}%`,
          title: `${p.label}: ${fmt(p.chars)} characters, ~${fmt(tokens(p.chars))} tokens`,
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
          `${p.label}: ~${fmt(tokens(p.chars))} tokens`,
        ),
      ),
    ),
    h(
      'p',
      { class: 'muted small' },
      'The client’s own system prompt and built-in tools come on top and are not counted here.',
    ),
  );
}

/** Claude's listing budget, and the skills it shortens to a bare name. */
function listing(r: BudgetReport): HTMLElement[] {
  const s = r.skills;
  const out: HTMLElement[] = [];
  if (s.budget) {
    out.push(
      h(
        'p',
        { class: 'small', 'data-testid': 'budget-listing' },
        `Skill listing: ${fmt(s.chars)} characters of Claude’s ${fmt(s.budget)}-character budget, ${s.listed.length} entries`,
        s.mode === 'fits' ? ', all with their descriptions.' : '.',
      ),
    );
  }
  if (s.cut.length) {
    out.push(
      h(
        'div',
        { class: 'notice notice-warning', 'data-testid': 'budget-cut' },
        h(
          'p',
          null,
          `Past the budget, ${s.cut.length === 1 ? 'this skill is' : `these ${s.cut.length} skills are`} listed by name only: the model never sees ${s.cut.length === 1 ? 'its description' : 'their descriptions'}, so it rarely picks ${s.cut.length === 1 ? 'it' : 'them'}.`,
        ),
        h('ul', { class: 'plain mono small' }, ...s.cut.map((n) => h('li', { 'data-skill': n }, n))),
      ),
    );
  }
  return out;
}

/** The MCP servers: a health dot each, its tools, and what the client sends for them. */
function mcpPart(r: BudgetReport, servers: MCPHealth[]): HTMLElement {
  const m = r.mcp;
  const byName = new Map(servers.map((s) => [s.name, s]));
  // The launch's servers, then those it leaves out (not acknowledged for it), with their checks.
  const rows = [...m.servers.map((s) => ({ name: s.name, plugin: s.plugin, checked: s.checked }))];
  for (const s of servers)
    if (!rows.some((r) => r.name === s.name)) rows.push({ name: s.name, plugin: s.plugin, checked: s.checked });
  if (!rows.length)
    return h('p', { class: 'muted small', 'data-testid': 'budget-mcp' }, 'No MCP servers in this launch.');
  return h(
    'div',
    { 'data-testid': 'budget-mcp' },
    h('h4', null, 'MCP servers'),
    h('p', { class: 'muted small' }, MCP_MODE[m.mode] ?? m.mode),
    h(
      'ul',
      { class: 'plain health-list' },
      ...rows.map((s) => {
        const hc = byName.get(s.name);
        const [state, text] =
          !hc && s.name.startsWith('plugin:')
            ? ['unknown', 'a legacy plugin’s server: Claude starts it itself, and the check does not']
            : health(hc, s.checked);
        return h(
          'li',
          { class: 'health', 'data-testid': 'mcp-health', 'data-server': s.name, 'data-state': state },
          h('span', { class: `dot dot-${state}`, 'aria-hidden': 'true' }),
          h('strong', { class: 'mono' }, s.name),
          s.plugin ? h('span', { class: 'muted small' }, ` ${s.plugin}`) : null,
          h('span', { class: 'small' }, ` — ${text}`),
          hc?.ok && hc.tools.length
            ? h(
                'div',
                { class: 'mono small muted', 'data-testid': 'mcp-tools' },
                hc.tools.map((t) => t.name).join(', '),
              )
            : null,
          hc && !hc.ok && hc.stderr
            ? h('details', { class: 'small' }, h('summary', null, 'stderr'), h('pre', { class: 'wrap' }, hc.stderr))
            : null,
        );
      }),
    ),
  );
}

function health(hc: MCPHealth | undefined, checked: boolean): [string, string] {
  const unacked = hc?.notAcknowledged
    ? `not acknowledged for this launch, so it does not start; acknowledge it with ${hc.ack ?? 'plugboard ack'}`
    : '';
  if (!hc || !checked) return unacked ? ['ack', unacked] : ['unknown', 'not checked since its config last changed'];
  const when = hc.checkedAt ? ` · checked ${new Date(hc.checkedAt).toLocaleString()}` : '';
  const tail = unacked ? ` · ${unacked}` : '';
  if (hc.ok) {
    const info = hc.serverInfo ? `${hc.serverInfo.name} ${hc.serverInfo.version}, ` : '';
    const n = hc.tools.length;
    return ['ok', `ok: ${info}${n} tool${n === 1 ? '' : 's'}, ready in ${hc.readyMs} ms${when}${tail}`];
  }
  return ['failed', `failed: ${hc.error ?? 'no answer'}${when}${tail}`];
}
