// Shared renderers: issue lines, MCP summaries, badges. Used by every view.

import { badge, h } from './dom';
import { fmtNumber, t } from './i18n';
import type { Issue, IssueCounts, McpSummary } from './types';

/**
 * `path:line: severity: message [code]`, the compiler-style line the CLI prints. Kept as the CLI
 * words it, severity included: issue messages and codes stay English by design.
 */
export function issueText(i: Issue): string {
  const where = i.line ? `${i.path}:${i.line}` : i.path;
  return `${where}: ${i.severity}: ${i.message} [${i.code}]`;
}

export function issueLine(i: Issue): HTMLElement {
  const where = i.line ? `${i.path}:${i.line}` : i.path;
  return h(
    'li',
    { class: `issue sev-${i.severity}`, 'data-testid': 'issue', 'data-code': i.code, 'data-severity': i.severity },
    h('span', { class: 'issue-where' }, `${where}:`),
    ' ',
    h('span', { class: `issue-sev sev-${i.severity}` }, `${i.severity}:`),
    ' ',
    h('span', { class: 'issue-msg' }, i.message),
    ' ',
    h('span', { class: 'issue-code' }, `[${i.code}]`),
  );
}

const sevOrder: Record<string, number> = { error: 0, warning: 1, info: 2 };

/** Issues grouped by file (files in name order), each group sorted by line then severity. */
export function issueGroups(issues: Issue[], testid = 'issues'): HTMLElement {
  if (issues.length === 0)
    return h('p', { class: 'muted', 'data-testid': `${testid}-none` }, t('plugins.render.noIssues'));
  const byFile = new Map<string, Issue[]>();
  for (const i of issues) {
    const list = byFile.get(i.path);
    if (list) list.push(i);
    else byFile.set(i.path, [i]);
  }
  const files = [...byFile.keys()].sort();
  return h(
    'div',
    { class: 'issue-groups', 'data-testid': testid },
    ...files.map((f) => {
      const list = byFile
        .get(f)!
        .slice()
        .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || sevOrder[a.severity] - sevOrder[b.severity]);
      return h(
        'section',
        { class: 'issue-group', 'data-file': f },
        h(
          'h4',
          { class: 'issue-file mono' },
          f,
          h('span', { class: 'muted' }, ` · ${t('plugins.render.fileIssues', { n: list.length })}`),
        ),
        h('ul', { class: 'issue-list mono' }, ...list.map(issueLine)),
      );
    }),
  );
}

/**
 * A plugin's one state (Go's Plugin.state): valid, valid with problems (a skill, server or the manifest
 * has an error: it loads with less than it declares) or invalid. Every surface shows this badge.
 */
export function stateBadge(p: { state: string }, upper = false, short = false): HTMLElement {
  const state = p.state;
  const el =
    state === 'invalid'
      ? badge(t(upper ? 'plugins.state.invalidUpper' : 'plugins.state.invalid'), 'error')
      : state === 'problems'
        ? badge(
            t(short ? 'plugins.state.problemsShort' : 'plugins.state.problems'),
            'warning',
            t('plugins.state.problemsTitle'),
          )
        : badge(t('plugins.state.valid'), 'ok');
  el.dataset.state = state;
  el.dataset.testid = 'plugin-state';
  return el;
}

export function countsBadges(c: IssueCounts): HTMLElement {
  const out = h('span', { class: 'counts' });
  if (c.errors) out.append(badge(t('plugins.count.errors', { n: c.errors }), 'error'));
  if (c.warnings) out.append(badge(t('plugins.count.warnings', { n: c.warnings }), 'warning'));
  if (!c.errors && !c.warnings) out.append(h('span', { class: 'muted small' }, t('plugins.render.noIssuesShort')));
  return out;
}

/** type is the server's transport as Go sends it: stdio, streamable-http, sse, http, or "" when unknown. */
export function isRemote(type: string, s: McpSummary): boolean {
  return type !== 'stdio' && (s.origin !== undefined || s.headerNames !== undefined || type !== '');
}

/**
 * The sanitised summary of one server. The backend sends names and counts only; this shows exactly
 * those fields and nothing else of the server.
 */
export function mcpSummary(type: string, s: McpSummary): HTMLElement {
  const parts: Node[] = [];
  const item = (label: string, value: Node | string) =>
    h('span', { class: 'kv' }, h('span', { class: 'k' }, label), ' ', value);
  const names = (xs: string[] | undefined) =>
    xs && xs.length
      ? h('span', { class: 'names' }, ...xs.map((x) => h('code', { class: 'name-chip' }, x)))
      : h('span', { class: 'muted' }, t('plugins.render.mcp.none'));
  if (isRemote(type, s)) {
    parts.push(item(t('plugins.render.mcp.origin'), h('code', null, s.origin ?? '—')));
    parts.push(item(t('plugins.render.mcp.headers'), names(s.headerNames)));
  } else {
    parts.push(item(t('plugins.render.mcp.executable'), h('code', null, s.executable ?? '—')));
    parts.push(item(t('plugins.render.mcp.args'), h('span', null, fmtNumber(s.args ?? 0))));
    parts.push(item(t('plugins.render.mcp.env'), names(s.envKeys)));
  }
  return h('div', { class: 'mcp-summary', 'data-testid': 'mcp-summary' }, ...parts);
}

export function typeBadge(type: string): HTMLElement {
  return badge(type || t('plugins.render.mcp.unknownType'), type === 'stdio' ? 'neutral' : 'info');
}
