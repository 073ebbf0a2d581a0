// The detail of one plugin: manifest metadata, skills (trust, model invocation, precedence, refused
// paths), the sanitised summary of each MCP server, and every issue grouped by file.

import type { ClientAnswers } from './clientAnswers';
import type { ClientAnswerResult } from './models.gen';
import { errorText } from './bridge';
import {
  CLIENT_NAME,
  claudeOnly,
  claudeOnlySentence,
  CLIENTS,
  clientState,
  launchAsOf,
  launchesAsClaude,
  stateText,
} from './clients';
import { badge, h, tilde } from './dom';
import { fmtNumber, type Key, t } from './i18n';
import { countsBadges, stateBadge, issueGroups, issueLine, mcpSummary, typeBadge } from './render';
import type { CatalogIndex } from './search';
import type { SettingsModel } from './settingsModel';
import type { ClientComponent, ClientName, ClientVerdict, Issue, Plugin, PluginSkill, SkillEntry } from './types';
import { formatBadge, formatLabel, judgedByLabel, sourceLabel } from './labels';

export interface DetailDeps {
  ix: CatalogIndex;
  settings: SettingsModel;
  openSkill: (entry: SkillEntry) => void;
  /** SetLaunchAs(plugin, client) and the new catalog applied; absent: the choice is shown, not offered. */
  setLaunchAs?: (pluginId: string, client: string) => Promise<void>;
  /** The "Installed" card (plugins.lock.json's entry and its actions) of a plugin Install installed. */
  installed?: HTMLElement | null;
  /** The Context card (views/budget.ts) of a launch of this plugin's folder. */
  budget?: HTMLElement | null;
  /** What the clients installed here said they load, beside the model's verdicts. */
  answers?: ClientAnswers;
}

/** Every issue of a plugin: its own, its skills', its MCP file's and servers'. */
export function allIssues(p: Plugin): Issue[] {
  const out = [...p.issues];
  for (const s of p.skills) out.push(...s.issues);
  if (p.mcp) {
    out.push(...p.mcp.issues);
    for (const s of p.mcp.servers) out.push(...s.issues);
  }
  return out;
}

/** The valid / invalid badge of a plugin, a skill or a server. */
function validBadge(valid: boolean): HTMLElement {
  return valid ? badge(t('plugins.state.valid'), 'ok') : badge(t('plugins.state.invalid'), 'error');
}

function row(label: string, value: Node | string | undefined | null, testid?: string): HTMLElement[] {
  if (value === undefined || value === null || value === '') return [];
  return [h('dt', null, label), h('dd', { 'data-testid': testid }, value)];
}

function metadata(p: Plugin, home: string): HTMLElement {
  const author = p.author
    ? [p.author.name, p.author.email && `<${p.author.email}>`, p.author.url].filter(Boolean).join(' ')
    : '';
  const keywords = p.keywords?.length
    ? h('span', { class: 'names' }, ...p.keywords.map((k) => h('span', { class: 'chip' }, k)))
    : null;
  const unsupported = p.unsupported?.length
    ? h(
        'span',
        { class: 'names' },
        ...p.unsupported.map((u) => badge(u, 'neutral', t('plugins.detail.unsupportedTitle'))),
        h('span', { class: 'muted small' }, ` ${t('plugins.detail.notSupportedYet')}`),
      )
    : null;
  return h(
    'dl',
    { class: 'meta', 'data-testid': 'detail-meta' },
    ...row(t('plugins.detail.meta.id'), h('code', null, p.id)),
    ...row(t('plugins.detail.meta.name'), p.name),
    ...row(t('plugins.detail.meta.version'), p.version),
    ...row(t('plugins.detail.meta.description'), p.description),
    ...row(t('plugins.detail.meta.author'), author),
    ...row(t('plugins.detail.meta.homepage'), p.homepage && h('span', { class: 'mono wrap' }, p.homepage)),
    ...row(t('plugins.detail.meta.repository'), p.repository && h('span', { class: 'mono wrap' }, p.repository)),
    ...row(t('plugins.detail.meta.license'), p.license),
    ...row(t('plugins.detail.meta.keywords'), keywords),
    ...row(t('plugins.detail.meta.format'), formatLabel(p.format)),
    ...row(t('plugins.detail.meta.source'), sourceLabel(p.source)),
    ...row(t('plugins.detail.meta.manifest'), p.manifest && h('code', null, p.manifest)),
    ...row(
      t('plugins.detail.meta.path'),
      h('span', { class: 'mono wrap', title: p.path }, tilde(p.path, home)),
      'detail-path',
    ),
    ...row(t('plugins.detail.meta.marketplace'), p.marketplace),
    ...row(t('plugins.detail.meta.revision'), p.revision && h('code', null, p.revision)),
    ...row(t('plugins.detail.meta.components'), unsupported),
  );
}

/** The precedence badge of a plugin skill, and a line saying what it shadows or what shadows it. */
function precedence(entry: SkillEntry | undefined, deps: DetailDeps): [HTMLElement | null, HTMLElement | null] {
  if (!entry) return [null, null];
  if (entry.active) {
    const n = entry.shadows?.length ?? 0;
    return [
      badge(t('plugins.state.active'), 'ok'),
      n ? h('div', { class: 'muted small' }, t('plugins.detail.shadowsCopies', { n })) : null,
    ];
  }
  if (entry.shadowedBy) {
    const winner = deps.ix.skillByPath.get(entry.shadowedBy);
    const label = winner ? `${winner.id} (${winner.source})` : tilde(entry.shadowedBy, deps.ix.doc.home);
    return [
      badge(t('plugins.state.shadowed'), 'neutral'),
      h(
        'div',
        { class: 'muted small', title: entry.shadowedBy, 'data-testid': 'shadowed-by' },
        t('plugins.detail.shadowedBy', { who: label }),
      ),
    ];
  }
  return [badge(t('plugins.state.inactive'), 'neutral'), null];
}

function skillRow(p: Plugin, s: PluginSkill, deps: DetailDeps): HTMLElement {
  const entry = deps.ix.skillByPath.get(`${p.path}/${s.path}`) ?? deps.ix.pluginSkills.get(p.id)?.get(s.name);
  const enabled = entry ? deps.settings.enabled(entry.id, entry.enabled) : true;
  const refused = (s.paths ?? []).filter((x) => !x.accepted);
  const [state, why] = precedence(entry, deps);
  const nameCell = h(
    'div',
    { class: 'skill-name' },
    entry
      ? h(
          'button',
          {
            class: 'link',
            type: 'button',
            onclick: () => deps.openSkill(entry),
            title: t('plugins.detail.showInSkills'),
          },
          s.name,
        )
      : h('span', null, s.name),
    s.folder !== s.name
      ? h('span', { class: 'muted small' }, ` ${t('plugins.detail.inFolder', { folder: s.folder })}`)
      : null,
    s.description ? h('div', { class: 'muted small clamp' }, s.description) : null,
    why,
  );
  const li = h(
    'li',
    { class: 'skill-item', 'data-testid': 'detail-skill', 'data-name': s.name },
    nameCell,
    h(
      'div',
      { class: 'skill-flags' },
      validBadge(s.valid),
      entry && !entry.trusted
        ? badge(t('plugins.state.untrusted'), 'warning', t('plugins.detail.untrustedTitle'))
        : badge(t('plugins.state.trusted'), 'ok'),
      s.modelInvocable
        ? badge(t('plugins.state.modelInvocable'), 'info')
        : badge(t('plugins.state.userInvokedOnly'), 'neutral'),
      enabled ? null : badge(t('plugins.state.disabled'), 'neutral'),
      state,
    ),
  );
  if (refused.length) {
    li.append(
      h(
        'ul',
        { class: 'refused', 'data-testid': 'refused-paths' },
        ...refused.map((x) =>
          h(
            'li',
            null,
            h('code', null, x.entry),
            h('span', { class: 'muted' }, ` ${t('plugins.detail.refused', { reason: x.reason ?? '' })}`),
          ),
        ),
      ),
    );
  }
  return li;
}

/** One line naming what Claude Code starts itself from a legacy plugin, which Plugboard does not manage. */
function nativeLine(p: Plugin): HTMLElement | null {
  const items = p.claudeNative ?? [];
  if (!items.length) return null;
  const kinds = { mcp: 'install.native.mcp', hook: 'install.native.hook', lsp: 'install.native.lsp' } as const;
  const what = items
    .map((n) => {
      const kind = t(kinds[n.kind as keyof typeof kinds] ?? 'install.native.mcp');
      return n.runs.length ? `${kind} ${n.name} (${n.runs.join(', ')})` : `${kind} ${n.name}`; // i18n-ignore: names
    })
    .join(t('install.listSep'));
  return h('p', { class: 'muted small', 'data-testid': 'detail-native' }, t('plugins.detail.native', { what }));
}

function mcpSection(p: Plugin, deps: DetailDeps): HTMLElement {
  if (!p.mcp) return h('p', { class: 'muted' }, t('plugins.detail.noMcpFile'));
  const merged = new Map(deps.ix.doc.mcp.map((m) => [m.name, m]));
  const head = h(
    'p',
    { class: 'mcp-file' },
    h('code', null, p.mcp.path),
    ' ',
    p.mcp.valid
      ? badge(t('plugins.detail.validServers', { n: p.mcp.servers.filter((s) => s.valid).length }), 'ok')
      : badge(t('plugins.state.mcpDisabled'), 'error'),
  );
  const servers = p.mcp.servers.map((s) => {
    const m = merged.get(s.name);
    let state: HTMLElement | null = null;
    if (m && s.valid && p.mcp!.valid) {
      if (m.winner.source === 'plugin' && m.winner.plugin === p.id) state = badge(t('plugins.state.active'), 'ok');
      else
        state = h(
          'span',
          { class: 'muted small' },
          t('plugins.detail.shadowedBy', {
            who: `${m.winner.source}${m.winner.plugin ? ` ${m.winner.plugin}` : ''}`,
          }),
        );
    }
    return h(
      'li',
      { class: 'server', 'data-testid': 'detail-mcp-server', 'data-name': s.name },
      h(
        'div',
        { class: 'server-head' },
        h('strong', null, s.name),
        ' ',
        typeBadge(s.type),
        ' ',
        validBadge(s.valid),
        ' ',
        state,
      ),
      mcpSummary(s.type, s.summary),
    );
  });
  return h(
    'div',
    null,
    head,
    h('ul', { class: 'servers' }, ...servers),
    h('p', { class: 'muted small' }, t('plugins.detail.mcpNote')),
  );
}

const STATE_BADGE: Record<string, string> = { loads: 'ok', refused: 'error', none: 'fmt-none' };

/** One client's verdict: loads or not, the manifest it reads and why, its skills, dropped parts, issues. */
function clientItem(c: ClientName, v: ClientVerdict, asked: HTMLElement | null): HTMLElement {
  const state = clientState(v);
  const n = v.skills.length;
  return h(
    'li',
    { class: 'client', 'data-testid': 'detail-client', 'data-client': c, 'data-state': state },
    h(
      'div',
      { class: 'client-head' },
      h('strong', { class: 'client-name' }, CLIENT_NAME[c]),
      badge(stateText(state), STATE_BADGE[state]),
      v.manifest
        ? h('span', { class: 'muted small' }, t('plugins.detail.client.reads'), h('code', null, v.manifest))
        : null,
      v.package
        ? h('span', { class: 'muted small', 'data-testid': 'client-skills' }, t('plugins.count.skills', { n }))
        : null,
      v.plugin
        ? h(
            'span',
            { class: 'muted small', title: t('plugins.detail.client.asTitle') },
            t('plugins.detail.client.as', { name: v.plugin }),
          )
        : null,
      v.commands?.length
        ? h('span', { class: 'muted small' }, t('plugins.detail.client.commands', { n: v.commands.length }))
        : null,
      v.agents?.length
        ? h('span', { class: 'muted small' }, t('plugins.detail.client.agents', { n: v.agents.length }))
        : null,
    ),
    h('p', { class: 'client-why', 'data-testid': 'client-why' }, v.why),
    v.judgedBy ? h('p', { class: 'muted small', 'data-testid': 'client-judged-by' }, judgedByLabel(v.judgedBy)) : null,
    asked,
    n > 0 && n <= 40
      ? h('div', { class: 'names' }, ...v.skills.map((name) => h('code', { class: 'name-chip' }, name)))
      : null,
    v.dropped.length
      ? h(
          'ul',
          { class: 'refused', 'data-testid': 'client-dropped' },
          ...v.dropped.map((d) =>
            h(
              'li',
              { title: d.rule ? t('plugins.detail.client.ruleTitle', { rule: d.rule }) : undefined },
              h('code', null, d.path),
              h('span', { class: 'muted' }, ` ${t('plugins.detail.client.leftOut', { reason: d.reason })}`),
            ),
          ),
        )
      : null,
    v.issues.length
      ? h('ul', { class: 'issue-list mono', 'data-testid': 'client-issues' }, ...v.issues.map(issueLine))
      : null,
  );
}

/** "Launch as Claude loads it": the current choice and the button that flips it (SetLaunchAs). */
function launchAsControl(p: Plugin, deps: DetailDeps): HTMLElement | null {
  const on = launchAsOf(p, deps.ix.doc) === 'claude';
  // Only a catalogued package (one an entry assigns) is launched; a choice once made can always be undone.
  const offer = !!deps.setLaunchAs && (p.source === 'plugboard' || !!p.entry) && (on || claudeOnly(p));
  if (!offer && !on) return null;
  const status = h('span', { class: 'muted small', 'data-testid': 'launch-as-status', role: 'status' });
  let state = t('plugins.detail.launchAs.off');
  if (on && claudeOnly(p)) state = t('plugins.detail.launchAs.on');
  else if (on && p.valid) state = t('plugins.detail.launchAs.notNeeded');
  else if (on) state = t('plugins.detail.launchAs.notApplied');
  const button = offer
    ? h(
        'button',
        {
          type: 'button',
          class: 'btn btn-small btn-toggle',
          'data-testid': 'launch-as-claude',
          'aria-pressed': String(on),
          title: on ? t('plugins.detail.launchAs.stopTitle') : t('plugins.detail.launchAs.startTitle'),
        },
        t('plugins.detail.launchAs.button'),
      )
    : null;
  button?.addEventListener('click', () => {
    button.disabled = true;
    status.classList.replace('error-text', 'muted');
    status.textContent = t('plugins.detail.launchAs.saving');
    deps.setLaunchAs!(p.id, on ? '' : 'claude').then(
      () => {
        // the new catalog re-renders the detail; this is for a render that kept this element
        button.disabled = false;
        status.textContent = '';
      },
      (e) => {
        button.disabled = false;
        status.classList.replace('muted', 'error-text');
        status.textContent = t('plugins.detail.launchAs.notChanged', { msg: errorText(e) });
      },
    );
  });
  return h(
    'div',
    { class: 'launch-as', 'data-testid': 'launch-as', 'data-on': String(on) },
    button,
    h('span', { class: 'small', 'data-testid': 'launch-as-state' }, state),
    status,
  );
}

function clientsSection(p: Plugin, deps: DetailDeps): HTMLElement {
  const cl = p.clients;
  const spec = h(
    'p',
    { class: 'spec-line', 'data-testid': 'spec-verdict', 'data-valid': String(p.valid) },
    h('strong', null, t('plugins.detail.spec')),
    formatBadge(p.format),
    p.manifest ? h('code', null, p.manifest) : h('span', { class: 'muted small' }, t('plugins.detail.noManifest')),
    stateBadge(p, true),
  );
  return h(
    'section',
    { class: 'card', 'data-testid': 'detail-clients', 'aria-labelledby': 'h-clients' },
    h('h3', { id: 'h-clients' }, t('plugins.detail.clients')),
    spec,
    claudeOnly(p) ? h('p', { class: 'notice notice-info', 'data-testid': 'claude-only' }, claudeOnlySentence(p)) : null,
    launchAsControl(p, deps),
    cl
      ? h('ul', { class: 'clients' }, ...CLIENTS.map((c) => clientItem(c, cl[c], askedLine(c, p, deps.answers))))
      : h('p', { class: 'muted' }, t('plugins.detail.noVerdicts')),
  );
}

/**
 * What the installed client said of this plugin, when it has been asked: that it agrees with the
 * model, or each disagreement; while the asking runs, how far it has come.
 */
function askedLine(c: ClientName, p: Plugin, answers: ClientAnswers | undefined): HTMLElement | null {
  const r = answers?.answerFor(c, p.id);
  const asking = answers?.asking();
  if (!r) {
    if (!asking || asking.client !== c) return null;
    return h(
      'p',
      { class: 'muted small', 'data-testid': 'client-asking' },
      t('plugins.detail.client.asking', {
        who: `${asking.client} ${asking.version}`,
        done: asking.done,
        total: asking.total,
      }),
    );
  }
  return answerNote(c, r);
}

/** One installed client's answer, beside the model's: it agrees, each disagreement, or why it could not be asked. */
export function answerNote(c: ClientName, r: ClientAnswerResult): HTMLElement {
  if (r.error) return h('p', { class: 'muted small', 'data-testid': 'client-asked', 'data-state': 'error' }, r.error);
  const who = `${r.answer?.client ?? c} ${r.answer?.version ?? ''}`.trim();
  if (!r.differs.length)
    return h(
      'p',
      { class: 'small client-asked', 'data-testid': 'client-asked', 'data-state': 'agrees' },
      t('plugins.detail.client.agrees', { who }),
    );
  return h(
    'div',
    { class: 'notice notice-warning', 'data-testid': 'client-asked', 'data-state': 'differs' },
    h('strong', null, t('plugins.detail.client.differs', { who })),
    h('ul', null, ...r.differs.map((d) => h('li', null, d))),
  );
}

/** Claude's slash commands or subagents: name, description, file. */
function componentSection(
  title: Key,
  note: Key,
  testid: string,
  items: ClientComponent[] | undefined,
): HTMLElement | null {
  if (!items?.length) return null;
  return h(
    'section',
    { class: 'card', 'data-testid': `${testid}s` },
    h('h3', null, `${t(title)} `, h('span', { class: 'muted' }, `(${fmtNumber(items.length)})`)),
    h('p', { class: 'muted small card-note' }, t(note)),
    h(
      'ul',
      { class: 'skill-items' },
      ...items.map((c) =>
        h(
          'li',
          { class: 'skill-item', 'data-testid': testid, 'data-name': c.name },
          h(
            'div',
            { class: 'skill-name' },
            h('strong', { class: 'mono' }, c.name),
            c.description ? h('div', { class: 'muted small clamp' }, c.description) : null,
          ),
          h('code', { class: 'small' }, c.file),
        ),
      ),
    ),
  );
}

export function pluginDetail(p: Plugin, deps: DetailDeps): HTMLElement {
  const issues = allIssues(p);
  // Reasons first: a package that is invalid, or loads with less than it declares, opens on its
  // issues (each with its file, line and fix); the counts in the header lead there too.
  const reasonsFirst = p.state !== 'valid';
  const issuesCard = h(
    'section',
    { class: 'card', 'data-testid': 'detail-issues', id: `issues-${p.id}`, tabindex: -1 },
    h('h3', null, `${t('plugins.detail.issues')} `, h('span', { class: 'muted' }, `(${fmtNumber(issues.length)})`)),
    issueGroups(issues),
  );
  const counts = countsBadges(p.issueCounts);
  const countsLink =
    p.issueCounts.errors || p.issueCounts.warnings
      ? h(
          'button',
          {
            type: 'button',
            class: 'link-button',
            'data-testid': 'detail-counts',
            title: t('plugins.detail.toIssues'),
            onclick: () => {
              issuesCard.scrollIntoView({ block: 'start' });
              issuesCard.focus();
            },
          },
          counts,
        )
      : counts;
  const clientSkills = p.clients?.claude.skills?.length ?? p.clients?.pi.skills?.length ?? 0;
  return h(
    'article',
    { class: 'detail-body', 'data-id': p.id },
    h(
      'header',
      { class: 'detail-head' },
      h('h2', { id: 'detail-title', tabindex: -1 }, p.name || p.id),
      h(
        'div',
        { class: 'detail-badges' },
        p.version ? h('span', { class: 'muted mono' }, p.version) : null,
        stateBadge(p),
        formatBadge(p.format),
        badge(sourceLabel(p.source), 'neutral'),
        launchesAsClaude(p, deps.ix.doc) ? badge(t('plugins.detail.launchesAsClaude'), 'info') : null,
        countsLink,
      ),
      p.description ? h('p', { class: 'lead' }, p.description) : null,
    ),
    reasonsFirst ? issuesCard : null,
    deps.installed ?? null,
    clientsSection(p, deps),
    h('section', { class: 'card' }, h('h3', null, t('plugins.detail.manifest')), metadata(p, deps.ix.doc.home)),
    h(
      'section',
      { class: 'card', 'data-testid': 'detail-skills' },
      h('h3', null, `${t('plugins.detail.skills')} `, h('span', { class: 'muted' }, `(${fmtNumber(p.skills.length)})`)),
      p.skills.length
        ? h('ul', { class: 'skill-items' }, ...p.skills.map((s) => skillRow(p, s, deps)))
        : h(
            'p',
            { class: 'muted', 'data-testid': 'detail-no-skills' },
            // an invalid package's skills are not read by the specification, though a client may load some
            !p.valid && clientSkills
              ? t('plugins.detail.noSkillsInvalid', { n: clientSkills })
              : t('plugins.detail.noSkills'),
          ),
    ),
    componentSection(
      'plugins.detail.commands',
      'plugins.detail.commandsNote',
      'detail-command',
      p.clients?.claude.commands,
    ),
    componentSection('plugins.detail.agents', 'plugins.detail.agentsNote', 'detail-agent', p.clients?.claude.agents),
    h(
      'section',
      { class: 'card', 'data-testid': 'detail-mcp' },
      h('h3', null, t('plugins.detail.mcpServers')),
      mcpSection(p, deps),
      nativeLine(p),
    ),
    deps.budget ?? null,
    reasonsFirst ? null : issuesCard,
  );
}
