// Installing plugins (issue 14): the Install dialog of the Plugins tab — a source (git URL,
// owner/repo, a folder's or archive's path, PLUGIN@MARKETPLACE) with its optional ref, path and
// name, and a browser of the added marketplaces — and, in the detail of a plugin Install
// installed (one with an entry in plugins.lock.json), its source and the Uninstall button.
//
// Progress: the backend emits every progress line of an install as `install:progress` while the
// call runs, and the dialog shows them as they come; the answer carries them all, which replace
// what arrived (an event can be dropped, or come after the answer on its own connection).
//
// After an install the backend has rescanned: the page applies that catalog (Catalog), selects the
// new plugin, and its detail says which MCP servers it brought, not acknowledged for any target.

import { api, ApiError, errorText, on } from '../bridge';
import { coalesced } from '../coalesce';
import { badge, h, mount, tilde } from '../dom';
import { fmtDateTime, t } from '../i18n';
import { openDialog, openModal, type DialogHandle } from '../modal';
import { issueLine } from '../render';
import type {
  ApiErrorBody,
  Issue,
  InstalledPlugin,
  InstallResult,
  InstallServer,
  Marketplace,
  MarketplacePlugin,
  NameDelta,
  Plugin,
  PluginUpdate,
} from '../types';
import type { Ctx } from './ctx';
import { progressLine } from '../progress';

interface Notice {
  kind: 'ok' | 'error' | 'info';
  text: string;
}

/** What an action in a plugin's detail left to say: its outcome, and what a refusal names. */
interface CardNotice {
  notice: Notice;
  /** Uninstall refused: the targets that assign the plugin. */
  targets?: string[];
  /** Update refused: the new version's errors. */
  issues?: Issue[];
  progress?: string[];
}

/** "version 1.0.0 → 1.1.0, commit 1a2b… → 3c4d…" for people. */
function versionText(u: PluginUpdate): string {
  const parts: string[] = [];
  const none = t('install.change.none');
  if (u.from.version !== u.to.version)
    parts.push(t('install.change.version', { from: u.from.version || none, to: u.to.version || none }));
  if (u.from.commit !== u.to.commit && u.to.commit)
    parts.push(t('install.change.commit', { from: short(u.from.commit), to: short(u.to.commit) }));
  return parts.join(t('install.change.sep')) || t('install.change.content');
}

/** A refusal's override the page offers: Force for an invalid package or a taken id. */
function forceLabel(reason: string): string | undefined {
  if (reason === 'invalid-package') return t('install.force.invalidPackage');
  if (reason === 'exists') return t('install.force.exists');
  return undefined;
}

/** What the user reads after a refusal, beside the backend's message (which names the file and the fix). */
function reasonHint(reason: string): string | undefined {
  return reason === 'exists' ? t('install.hint.exists') : undefined;
}

/** A git commit for people: its first 12 hex digits. */
function short(commit: string | undefined): string {
  return commit ? commit.slice(0, 12) : '';
}

function serverLine(s: InstallServer): string {
  if (s.executable || !s.origin)
    return t('install.server.runs', {
      name: s.name,
      type: s.type || 'stdio',
      executable: s.executable ?? '?',
      n: s.args ?? 0,
    });
  return t('install.server.connects', { name: s.name, type: s.type, origin: s.origin });
}

/**
 * The install side of the Plugins tab: what plugins.lock.json says (Installed), the last install's
 * outcome, the dialog, and the card in a plugin's detail.
 */
export class Installs {
  private readonly ctx: Ctx;
  /** Re-renders the list and the detail (installed entries loaded, an outcome to show). */
  private readonly changed: () => void;
  private installed = new Map<string, InstalledPlugin>();
  private installedError = '';
  /** The outcome of the last install of this page, shown in that plugin's detail. */
  private last: InstallResult | null = null;
  /** A message for the Plugins tab that outlives the detail (an uninstall). */
  readonly notice: HTMLElement;
  private dialog: InstallDialog | null = null;
  /** Per plugin id: the action running in its detail ("Uninstalling…", "Updating…", …). */
  private busy = new Map<string, string>();
  /** Per plugin id: the outcome, refusal or failure of an action in its detail. */
  private cardNotice = new Map<string, CardNotice>();
  /** What CheckUpdates found last, per plugin id. */
  private updates = new Map<string, PluginUpdate>();
  /** A check of every installed plugin is running; checkError says why the last one failed. */
  private checking = false;
  private checkError = '';
  /** Progress lines of the update running in a detail, as they come. */
  private live: { id: string; lines: string[] } | null = null;

  constructor(ctx: Ctx, changed: () => void) {
    this.ctx = ctx;
    this.changed = changed;
    this.notice = h('div', { class: 'plugins-notice', 'data-testid': 'plugins-notice', role: 'status', hidden: true });
    this.checkBtn = h(
      'button',
      {
        type: 'button',
        class: 'btn btn-small',
        'data-testid': 'check-updates',
        onclick: () => void this.check('', true),
      },
      t('install.check.button'),
    );
    on('install:progress', (ev) => {
      if (!this.live || !ev?.line) return;
      this.live.lines.push(ev.line);
      this.changed();
    });
  }

  private readonly checkBtn: HTMLButtonElement;

  /** The Check for updates button of the toolbar (every installed plugin). */
  checkButton(): HTMLButtonElement {
    return this.checkBtn;
  }

  /**
   * CheckUpdates for one plugin, or ("") for every installed one. It fetches each source, so it runs
   * when asked (this button, the dialog opening), never on a render.
   */
  async check(id: string, announce = false): Promise<void> {
    if (id ? this.busy.has(id) : this.checking) return;
    if (id) this.busy.set(id, t('install.check.checking'));
    else {
      this.checking = true;
      this.checkBtn.disabled = true;
      this.checkBtn.textContent = t('install.check.checking');
      if (announce) this.notice.hidden = true;
    }
    this.changed();
    // Check for updates (the button) is a new state: what a card said before (a failed rollback) goes
    if (!id && announce) this.cardNotice.clear();
    try {
      const ups = (await api.checkUpdates(id)) ?? [];
      if (!id) this.updates.clear();
      for (const u of ups) this.updates.set(u.id, u);
      if (id) this.cardNotice.delete(id);
      else if (announce) {
        const n = ups.filter((u) => this.available(u)).length;
        const failed = ups.filter((u) => u.error).length;
        const summary = n ? t('install.check.available', { n }) : t('install.check.allCurrent');
        this.say(
          failed ? 'error' : 'info',
          ups.length === 0
            ? t('install.check.nothing')
            : failed
              ? t('install.check.someFailed', { summary, n: failed })
              : t('install.check.summary', { summary }),
        );
      }
      this.checkError = '';
    } catch (e) {
      if (id)
        this.cardNotice.set(id, {
          notice: { kind: 'error', text: t('install.check.notChecked', { msg: errorText(e) }) },
        });
      else {
        this.checkError = errorText(e);
        if (announce) this.say('error', t('install.check.updatesNotChecked', { msg: this.checkError }));
      }
    } finally {
      if (id) this.busy.delete(id);
      else {
        this.checking = false;
        this.checkBtn.disabled = false;
        this.checkBtn.textContent = t('install.check.button');
      }
      this.changed();
    }
  }

  /** An update Check found that still applies: the installed content is the one it compared with. */
  private available(u: PluginUpdate | undefined): boolean {
    if (!u || !u.changed || u.applied || u.error) return false;
    const e = this.installed.get(u.id);
    return !e || e.content === u.from.content;
  }

  /** The "update available" badge of a row in the Plugins list, or null. */
  rowBadge(p: Plugin): HTMLElement | null {
    if (p.source !== 'plugboard' || !this.available(this.updates.get(p.id))) return null;
    const b = badge(t('install.badge.update'), 'info', t('install.badge.updateTitle'));
    b.dataset.testid = 'update-badge';
    return b;
  }

  /** Reads plugins.lock.json again; overlapping calls collapse into one more. */
  readonly load = coalesced(async () => {
    try {
      const list = (await api.installed()) ?? [];
      this.installed = new Map(list.map((e) => [e.id, e]));
      this.installedError = '';
    } catch (e) {
      this.installedError = errorText(e);
    }
    this.changed();
  });

  /** The lockfile entry of a plugin of the Plugboard home, if Install installed it. */
  entry(p: Plugin): InstalledPlugin | undefined {
    return p.source === 'plugboard' ? this.installed.get(p.id) : undefined;
  }

  /** The Install… button of the toolbar. */
  button(): HTMLButtonElement {
    return h(
      'button',
      { type: 'button', class: 'btn btn-small', 'data-testid': 'install-open', onclick: () => this.open() },
      t('install.open'),
    );
  }

  open(): void {
    if (this.dialog) return;
    void this.check(''); // what is installed may have news; the list's badges show it
    this.dialog = new InstallDialog(this.ctx, {
      installed: (res) => void this.installedOne(res),
      closed: () => (this.dialog = null),
    });
  }

  private say(kind: Notice['kind'], text: string): void {
    this.notice.hidden = false;
    this.notice.className = `plugins-notice notice notice-${kind}`;
    this.notice.dataset.kind = kind;
    this.notice.textContent = text;
  }

  /** An install succeeded: apply the backend's rescan, select the plugin, show what it brought. */
  private async installedOne(res: InstallResult): Promise<void> {
    this.last = res;
    this.cardNotice.delete(res.id);
    this.notice.hidden = true;
    try {
      await this.ctx.docCall(api.catalog);
    } catch (e) {
      this.say('error', t('install.catalogUnread', { id: res.id, msg: errorText(e) }));
    }
    await this.load();
    this.ctx.showPlugin(res.id);
  }

  /** The "Installed" card of a plugin's detail, or null for one Install did not install. */
  card(p: Plugin): HTMLElement | null {
    const e = this.entry(p);
    const last = this.last?.id === p.id && p.source === 'plugboard' ? this.last : null;
    if (!e && !last) return null;
    const home = this.ctx.index()?.doc.home;
    const rows: HTMLElement[] = [];
    const row = (label: string, value: Node | string | undefined, testid?: string) => {
      if (value === undefined || value === '') return;
      rows.push(h('dt', null, label), h('dd', { 'data-testid': testid }, value));
    };
    if (e) {
      row(t('install.card.source'), h('span', { class: 'mono wrap' }, tilde(e.source, home)), 'installed-source');
      row(t('install.card.kind'), e.kind);
      row(t('install.card.ref'), e.ref);
      row(t('install.card.path'), e.path && h('code', null, e.path));
      row(t('install.card.commit'), e.commit && h('code', { title: e.commit }, short(e.commit)), 'installed-commit');
      row(t('install.card.archive'), e.archive && h('code', null, e.archive.slice(0, 19)));
      row(t('install.card.installed'), fmtDateTime(e.installedAt));
    }
    const parts: Array<Node | null> = [h('h3', { id: 'h-installed' }, t('install.card.title'))];
    if (last) parts.push(...this.outcome(last));
    if (e) parts.push(h('dl', { class: 'meta' }, ...rows));
    else parts.push(h('p', { class: 'muted small' }, this.installedError || t('install.card.reading')));
    if (e) parts.push(...this.updateState(p.id));
    const running = this.busy.get(p.id);
    const action = (testid: string, label: string, run: () => void, aria?: string, off = false, title?: string) =>
      h(
        'button',
        {
          type: 'button',
          class: 'btn btn-small',
          'data-testid': testid,
          disabled: !!running || !e || off,
          'aria-label': aria,
          title,
          onclick: run,
        },
        label,
      );
    const kept = e?.rollback;
    parts.push(
      h(
        'div',
        { class: 'row install-actions' },
        action(
          'check-update',
          t('install.check.button'),
          () => void this.check(p.id),
          t('install.check.buttonFor', { id: p.id }),
        ),
        action('update', t('install.card.update'), () => void this.update(p.id)),
        action(
          'rollback',
          t('install.card.rollback'),
          () => void this.rollback(p.id),
          undefined,
          !kept,
          kept
            ? kept.commit
              ? t('install.card.rollbackToCommit', { commit: short(kept.commit) })
              : t('install.card.rollbackTo')
            : t('install.card.rollbackNone'),
        ),
        action('uninstall', t('install.card.uninstall'), () => void this.uninstall(p.id, false)),
        running ? h('span', { class: 'muted small', 'data-testid': 'installed-busy' }, running) : null,
      ),
    );
    if (this.live?.id === p.id && this.live.lines.length)
      parts.push(
        h('ol', { class: 'progress-lines mono' }, ...this.live.lines.map((l) => h('li', null, progressLine(l)))),
      );
    const n = this.cardNotice.get(p.id);
    if (n) {
      parts.push(
        h(
          'div',
          { 'data-testid': 'installed-status', role: 'status' },
          h('p', { class: `notice notice-${n.notice.kind}`, 'data-kind': n.notice.kind }, n.notice.text),
          n.issues?.length
            ? h('ul', { class: 'issue-list mono refusal', 'data-testid': 'update-issues' }, ...n.issues.map(issueLine))
            : null,
          n.targets?.length
            ? h(
                'ul',
                { class: 'plain names', 'data-testid': 'uninstall-targets' },
                ...n.targets.map((target) => h('li', null, h('code', { class: 'name-chip' }, target))),
              )
            : null,
          n.targets?.length
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'btn btn-small',
                  'data-testid': 'uninstall-anyway',
                  disabled: !!running,
                  onclick: () => void this.uninstall(p.id, true),
                },
                t('install.card.uninstallAnyway'),
              )
            : null,
          n.progress?.length
            ? h(
                'details',
                { class: 'small' },
                h('summary', null, t('install.progress')),
                h('ol', { class: 'progress-lines mono' }, ...n.progress.map((l) => h('li', null, progressLine(l)))),
              )
            : null,
        ),
      );
    }
    return h(
      'section',
      { class: 'card installed-card', 'data-testid': 'detail-installed', 'aria-labelledby': 'h-installed' },
      ...parts,
    );
  }

  /** What the last install reported: the verdict, the servers not acknowledged, its progress lines. */
  private outcome(r: InstallResult): Node[] {
    const how = r.forced
      ? t('install.outcome.forced')
      : r.valid
        ? t('install.outcome.valid')
        : t('install.outcome.invalid');
    const at = r.commit ? t('install.atCommit', { commit: short(r.commit) }) : '';
    const from = r.marketplace ?? tilde(r.source, this.ctx.index()?.doc.home);
    const out: Node[] = [
      h(
        'p',
        { class: `notice notice-${r.forced ? 'error' : 'ok'}`, 'data-testid': 'install-outcome' },
        t(r.replaced ? 'install.outcome.replaced' : 'install.outcome.installed', { id: r.id, from, at, how }),
      ),
    ];
    if (r.credentialsStripped) out.push(h('p', { class: 'muted small' }, t('install.outcome.credentials')));
    if (r.servers.length)
      out.push(
        h(
          'div',
          { class: 'notice notice-info', 'data-testid': 'install-servers' },
          h('p', null, t('install.outcome.servers', { n: r.servers.length })),
          h(
            'ul',
            { class: 'plain' },
            ...r.servers.map((s) =>
              h(
                'li',
                { 'data-testid': 'install-server', 'data-name': s.name },
                h('code', null, serverLine(s)),
                ' ',
                badge(t('install.outcome.notAcked'), 'warning'),
              ),
            ),
          ),
        ),
      );
    if (r.progress.length)
      out.push(
        h(
          'details',
          { class: 'small' },
          h('summary', null, t('install.progress')),
          h('ol', { class: 'progress-lines mono' }, ...r.progress.map((l) => h('li', null, progressLine(l)))),
        ),
      );
    return out;
  }

  /** What the last check found for an installed plugin: the change summary, up to date, or why not. */
  private updateState(id: string): Node[] {
    const u = this.updates.get(id);
    if (!u) return [];
    if (u.error)
      return [
        h(
          'p',
          { class: 'notice notice-error', 'data-testid': 'update-state', 'data-state': 'error' },
          t('install.check.notChecked', { msg: u.error }),
        ),
      ];
    if (u.pinned)
      return [
        h(
          'p',
          { class: 'muted small', 'data-testid': 'update-state', 'data-state': 'pinned' },
          t('install.state.pinned', { commit: short(u.ref) }),
        ),
      ];
    if (!this.available(u))
      return [
        h(
          'p',
          { class: 'muted small', 'data-testid': 'update-state', 'data-state': 'current' },
          t('install.state.current'),
        ),
      ];
    const c = u.changes;
    const lines: Node[] = [];
    const item = (text: string) => lines.push(h('li', null, text));
    const none = t('install.change.none');
    if (c.version) item(t('install.change.version', { from: c.version[0] || none, to: c.version[1] || none }));
    if (u.from.commit && u.to.commit && u.from.commit !== u.to.commit)
      item(t('install.change.commit', { from: short(u.from.commit), to: short(u.to.commit) }));
    const sep = t('install.listSep');
    const delta = (what: string, d: NameDelta) => {
      const parts = (
        [
          ['install.delta.added', d.added],
          ['install.delta.removed', d.removed],
          ['install.delta.changed', d.changed],
        ] as const
      )
        .filter(([, names]) => names.length)
        .map(([key, names]) => t(key, { names: names.join(sep) }));
      if (parts.length) item(t('install.delta.line', { what, parts: parts.join(t('install.delta.sep')) }));
    };
    delta(t('install.delta.skills'), c.skills);
    delta(t('install.delta.commands'), c.commands);
    delta(t('install.delta.servers'), c.servers);
    for (const n of c.needsAck)
      item(
        n.targets.length
          ? t('install.ack.forTargets', { server: n.server, targets: n.targets.join(sep) })
          : t('install.ack.eachTarget', { server: n.server }),
      );
    for (const n of c.native ?? [])
      item(
        t('install.native', {
          what: t(`install.native.${n.kind as 'mcp' | 'hook' | 'lsp'}`),
          name: n.name,
          change: t(`install.native.${n.change as 'added' | 'changed' | 'removed'}`),
          file: n.file,
          runs: n.runs.join(sep),
        }),
      );
    if (u.modified) item(t('install.modified'));
    if (!lines.length) item(t('install.change.content'));
    return [
      h(
        'div',
        { class: 'notice notice-info', 'data-testid': 'update-state', 'data-state': 'available' },
        h('strong', null, t('install.state.available')),
        h('ul', { class: 'update-summary', 'data-testid': 'update-summary' }, ...lines),
      ),
    ];
  }

  /** Update: the new version in place, the catalog re-read, the outcome in the detail. */
  private async update(id: string): Promise<void> {
    if (this.busy.has(id)) return;
    this.busy.set(id, t('install.update.busy'));
    this.cardNotice.delete(id);
    this.live = { id, lines: [] };
    this.changed();
    try {
      const r = await api.update(id);
      const u = r.updates.find((x) => x.id === id);
      this.updates.delete(id);
      if (this.last?.id === id) this.last = null;
      let text = t('install.update.current', { id });
      if (u?.pinned) text = t('install.update.pinned', { id, commit: short(u.ref) });
      else if (u?.applied) text = t('install.update.done', { id, changes: versionText(u) });
      const ack = u?.applied ? u.changes.needsAck.map((n) => n.server) : [];
      if (ack.length)
        text = t('install.update.needAck', { text, n: ack.length, names: ack.join(t('install.listSep')) });
      this.cardNotice.set(id, { notice: { kind: 'ok', text }, progress: r.progress });
      await this.ctx.docCall(api.catalog).catch(() => {});
    } catch (e) {
      const body: ApiErrorBody | undefined = e instanceof ApiError ? e.body : undefined;
      this.cardNotice.set(id, {
        notice: { kind: 'error', text: t('install.update.failed', { msg: errorText(e) }) },
        issues: body?.issues,
        progress: body?.progress,
      });
    } finally {
      this.busy.delete(id);
      this.live = null;
      await this.load();
    }
  }

  /** Rollback: the version the last update replaced, back in place. */
  private async rollback(id: string): Promise<void> {
    if (this.busy.has(id)) return;
    this.busy.set(id, t('install.rollback.busy'));
    this.cardNotice.delete(id);
    this.changed();
    try {
      const r = await api.rollback(id);
      this.updates.delete(id);
      if (this.last?.id === id) this.last = null;
      this.cardNotice.set(id, {
        notice: {
          kind: 'ok',
          text: r.commit
            ? t('install.rollback.doneAt', { id, commit: short(r.commit) })
            : t('install.rollback.done', { id }),
        },
      });
      await this.ctx.docCall(api.catalog).catch(() => {});
    } catch (e) {
      this.cardNotice.set(id, { notice: { kind: 'error', text: t('install.rollback.failed', { msg: errorText(e) }) } });
    } finally {
      this.busy.delete(id);
      await this.load();
    }
  }

  private async uninstall(id: string, force: boolean): Promise<void> {
    if (this.busy.has(id)) return;
    if (!force) {
      const e = this.installed.get(id);
      const home = this.ctx.index()?.doc.home;
      const path = `${tilde(this.ctx.index()?.doc.plugboardHome ?? '', home)}/plugins/${id}`;
      const v = await openModal({
        title: t('install.uninstall.title', { id }),
        testid: 'uninstall-dialog',
        body: [
          h(
            'p',
            null,
            e
              ? t('install.uninstall.bodyAgain', { path, source: tilde(e.source, home) })
              : t('install.uninstall.body', { path }),
          ),
        ],
        actions: [
          { label: t('install.uninstall.cancel'), value: 'cancel', testid: 'uninstall-cancel' },
          { label: t('install.uninstall.confirm'), value: 'uninstall', primary: true, testid: 'uninstall-confirm' },
        ],
        cancel: 'cancel',
      });
      if (v !== 'uninstall') return;
    }
    this.busy.set(id, t('install.uninstall.busy'));
    this.cardNotice.delete(id);
    this.changed();
    try {
      const r = await api.uninstall(id, force);
      if (this.last?.id === id) this.last = null;
      this.updates.delete(id);
      this.say(
        'ok',
        r.targets.length
          ? t('install.uninstall.doneStill', { id, targets: r.targets.join(t('install.listSep')) })
          : t('install.uninstall.done', { id }),
      );
      await this.ctx
        .docCall(api.catalog)
        .catch((e) => this.say('error', t('install.uninstall.catalogError', { id, msg: errorText(e) })));
    } catch (e) {
      const body: ApiErrorBody | undefined = e instanceof ApiError ? e.body : undefined;
      this.cardNotice.set(id, {
        notice: { kind: 'error', text: t('install.uninstall.failed', { msg: errorText(e) }) },
        targets: body?.reason === 'in-use' ? (body.targets ?? []) : undefined,
      });
    } finally {
      this.busy.delete(id);
      await this.load();
    }
  }
}

interface DialogDeps {
  installed: (res: InstallResult) => void;
  closed: () => void;
}

/** The Install dialog: a source form and the marketplace browser. */
class InstallDialog {
  private readonly ctx: Ctx;
  private readonly deps: DialogDeps;
  private readonly handle: DialogHandle;
  private readonly source: HTMLInputElement;
  private readonly ref: HTMLInputElement;
  private readonly path: HTMLInputElement;
  private readonly name: HTMLInputElement;
  private readonly force: HTMLInputElement;
  private readonly forceLabel: HTMLElement;
  private readonly forceText: HTMLElement;
  private readonly submit: HTMLButtonElement;
  private readonly status: HTMLElement;
  private readonly search: HTMLInputElement;
  private readonly markets: HTMLElement;
  private readonly marketSource: HTMLInputElement;
  private readonly marketName: HTMLInputElement;
  private readonly marketAdd: HTMLButtonElement;
  private readonly marketStatus: HTMLElement;
  private readonly offProgress: () => void;
  private busy = false;
  private lines: string[] = [];
  private notice: Notice | null = null;
  private issues: ApiErrorBody['issues'] = [];
  private list: Marketplace[] | null = null;
  private listError = '';
  private marketNotice: Notice | null = null;
  private marketIssues: ApiErrorBody['issues'] = [];
  private adding = false;

  constructor(ctx: Ctx, deps: DialogDeps) {
    this.ctx = ctx;
    this.deps = deps;
    const field = (id: string, label: string, placeholder: string) =>
      h('input', {
        type: 'text',
        id,
        class: 'mono',
        placeholder,
        'aria-label': label,
        'data-testid': id,
        spellcheck: 'false',
        autocomplete: 'off',
      });
    this.source = field('install-source', t('install.dialog.source'), 'https://github.com/acme/greeter.git');
    this.source.classList.add('grow');
    this.ref = field('install-ref', t('install.dialog.ref'), t('install.dialog.refPlaceholder'));
    this.path = field('install-path', t('install.dialog.path'), t('install.dialog.pathPlaceholder'));
    this.name = field('install-name', t('install.dialog.name'), t('install.dialog.namePlaceholder'));
    for (const el of [this.source, this.ref, this.path, this.name])
      el.addEventListener('keydown', (e) => e.key === 'Enter' && void this.install());
    this.force = h('input', { type: 'checkbox', 'data-testid': 'install-force' });
    this.forceText = h('span', null);
    this.forceLabel = h('label', { class: 'check', hidden: true }, this.force, this.forceText);
    this.submit = h(
      'button',
      { type: 'button', class: 'btn btn-primary', 'data-testid': 'install-submit', onclick: () => void this.install() },
      t('install.dialog.install'),
    );
    this.status = h('div', {
      class: 'install-status',
      'data-testid': 'install-status',
      role: 'status',
      'aria-live': 'polite',
    });
    this.search = h('input', {
      type: 'search',
      class: 'search',
      placeholder: t('install.market.searchPlaceholder'),
      'aria-label': t('install.market.searchLabel'),
      'data-testid': 'market-search',
      autocomplete: 'off',
      spellcheck: 'false',
    });
    this.search.addEventListener('input', () => this.renderMarkets());
    this.markets = h('div', { class: 'market-list', 'data-testid': 'market-list' });
    this.marketSource = field('market-source', t('install.market.sourceLabel'), t('install.market.sourcePlaceholder'));
    this.marketSource.classList.add('grow');
    this.marketSource.addEventListener('keydown', (e) => e.key === 'Enter' && void this.addMarket());
    this.marketName = field('market-name', t('install.market.nameLabel'), t('install.market.namePlaceholder'));
    this.marketAdd = h(
      'button',
      { type: 'button', class: 'btn', 'data-testid': 'market-add', onclick: () => void this.addMarket() },
      t('install.market.add'),
    );
    this.marketStatus = h('div', { 'data-testid': 'market-status', role: 'status', 'aria-live': 'polite' });
    this.offProgress = on('install:progress', (ev) => {
      if (!this.busy || !ev?.line) return;
      this.lines.push(ev.line);
      this.render();
    });

    const label = (forId: string, text: string) => h('label', { for: forId, class: 'field-label' }, text);
    this.handle = openDialog({
      title: t('install.dialog.title'),
      testid: 'install-dialog',
      wide: true,
      onClose: () => {
        this.offProgress();
        this.deps.closed();
      },
      body: [
        h(
          'section',
          { class: 'install-form', 'aria-label': t('install.dialog.formLabel') },
          label('install-source', t('install.dialog.source')),
          h('p', { class: 'muted small' }, t('install.dialog.sourceHelp')),
          h('div', { class: 'row' }, this.source, this.submit),
          h(
            'div',
            { class: 'install-options' },
            h('div', null, label('install-ref', t('install.dialog.refLabel')), this.ref),
            h('div', null, label('install-path', t('install.dialog.path')), this.path),
            h('div', null, label('install-name', t('install.dialog.name')), this.name),
          ),
          this.forceLabel,
          this.status,
        ),
        h(
          'section',
          { class: 'install-markets', 'aria-labelledby': 'h-markets' },
          h('h3', { id: 'h-markets' }, t('install.market.title')),
          this.search,
          this.markets,
          label('market-source', t('install.market.addTitle')),
          h('div', { class: 'row' }, this.marketSource, this.marketName, this.marketAdd),
          this.marketStatus,
        ),
      ],
    });
    this.render();
    this.renderMarkets();
    void this.loadMarkets();
  }

  private async loadMarkets(): Promise<void> {
    try {
      this.list = (await api.marketplaces()) ?? [];
      this.listError = '';
    } catch (e) {
      this.listError = errorText(e);
    }
    this.renderMarkets();
  }

  /** The typed source, with ~ for the home folder; a relative path is refused here with the fix. */
  private sourceValue(): string {
    const v = this.source.value.trim();
    if (v === '.' || v === '..' || v.startsWith('./') || v.startsWith('../')) {
      this.notice = { kind: 'error', text: t('install.dialog.relative', { source: v }) };
      return '';
    }
    if (!v) this.notice = { kind: 'error', text: t('install.dialog.noSource') };
    return v;
  }

  private async install(): Promise<void> {
    if (this.busy) return;
    this.notice = null;
    this.issues = [];
    const source = this.sourceValue();
    if (!source) {
      this.render();
      this.source.focus();
      return;
    }
    this.busy = true;
    this.lines = [];
    this.render();
    const force = !this.forceLabel.hidden && this.force.checked;
    try {
      const res = await api.install(source, this.ref.value, this.path.value, this.name.value, force);
      this.busy = false;
      this.handle.close();
      this.deps.installed(res);
      return;
    } catch (e) {
      const body: ApiErrorBody | undefined = e instanceof ApiError ? e.body : undefined;
      if (body?.progress?.length) this.lines = body.progress;
      const reason = body?.reason ?? '';
      const msg = errorText(e).replace(/\.?$/, '.');
      const hint = reasonHint(reason);
      this.notice = {
        kind: 'error',
        text: hint ? t('install.dialog.notInstalledHint', { msg, hint }) : t('install.dialog.notInstalled', { msg }),
      };
      this.issues = body?.issues ?? [];
      const force = forceLabel(reason);
      if (force) {
        this.forceLabel.hidden = false;
        this.forceText.textContent = ` ${force}`;
        this.force.checked = false;
      }
    }
    this.busy = false;
    this.render();
  }

  private render(): void {
    this.submit.disabled = this.busy;
    this.submit.textContent = this.busy ? t('install.dialog.installing') : t('install.dialog.install');
    const n = this.notice;
    mount(
      this.status,
      n ? h('p', { class: `notice notice-${n.kind}`, 'data-kind': n.kind }, n.text) : null,
      this.issues?.length
        ? h('ul', { class: 'issue-list mono refusal', 'data-testid': 'install-issues' }, ...this.issues.map(issueLine))
        : null,
      this.lines.length || this.busy
        ? h(
            'ol',
            {
              class: 'progress-lines mono small',
              'data-testid': 'install-progress',
              'aria-label': t('install.progress'),
            },
            ...this.lines.map((l) => h('li', null, progressLine(l))),
            this.busy ? h('li', { class: 'muted' }, '…') : null,
          )
        : null,
    );
  }

  /** A marketplace plugin matches the search by its name or its description. */
  private matches(p: MarketplacePlugin): boolean {
    const q = this.search.value.trim().toLowerCase();
    if (!q) return true;
    return q
      .split(/\s+/)
      .every((w) => p.name.toLowerCase().includes(w) || (p.description ?? '').toLowerCase().includes(w));
  }

  private renderMarkets(): void {
    const home = this.ctx.index()?.doc.home;
    const items: Node[] = [];
    if (this.listError)
      items.push(h('p', { class: 'notice notice-error' }, t('install.market.listError', { msg: this.listError })));
    else if (!this.list) items.push(h('p', { class: 'muted' }, t('install.market.loading')));
    else if (!this.list.length)
      items.push(h('p', { class: 'muted', 'data-testid': 'market-none' }, t('install.market.none')));
    let shown = 0;
    for (const m of this.list ?? []) {
      const plugins = m.plugins.filter((p) => this.matches(p));
      shown += plugins.length;
      items.push(
        h(
          'section',
          { class: 'market', 'data-testid': 'market', 'data-name': m.name },
          h(
            'div',
            { class: 'market-head' },
            h('strong', null, m.name),
            badge(m.kind, 'neutral'),
            h(
              'span',
              { class: 'muted small mono wrap grow' },
              tilde(m.source, home),
              m.commit ? t('install.atCommit', { commit: short(m.commit) }) : '',
            ),
            h('span', { class: 'muted small' }, t('install.market.plugins', { n: m.plugins.length })),
            h(
              'button',
              {
                type: 'button',
                class: 'btn btn-small btn-quiet',
                'data-testid': 'market-remove',
                'aria-label': t('install.market.removeLabel', { name: m.name }),
                onclick: () => void this.removeMarket(m),
              },
              t('install.market.remove'),
            ),
          ),
          m.issues.filter((i) => i.severity !== 'info').length
            ? h(
                'ul',
                { class: 'issue-list mono small' },
                ...m.issues.filter((i) => i.severity !== 'info').map(issueLine),
              )
            : null,
          h(
            'ul',
            { class: 'plain market-plugins' },
            ...plugins.map((p) => this.pluginItem(m, p)),
            plugins.length === 0 && m.plugins.length > 0
              ? h('li', { class: 'muted small' }, t('install.market.noMatch'))
              : null,
          ),
        ),
      );
    }
    mount(this.markets, ...items);
    this.markets.dataset.shown = String(shown);
    const n = this.marketNotice;
    mount(
      this.marketStatus,
      n ? h('p', { class: `notice notice-${n.kind}`, 'data-kind': n.kind }, n.text) : null,
      this.marketIssues?.length
        ? h(
            'ul',
            { class: 'issue-list mono refusal', 'data-testid': 'market-issues' },
            ...this.marketIssues.map(issueLine),
          )
        : null,
    );
    this.marketAdd.disabled = this.adding;
    this.marketAdd.textContent = this.adding ? t('install.market.adding') : t('install.market.add');
  }

  private pluginItem(m: Marketplace, p: MarketplacePlugin): HTMLElement {
    const id = `${p.name}@${m.name}`;
    return h(
      'li',
      { class: 'market-plugin', 'data-testid': 'market-plugin', 'data-id': id },
      h(
        'div',
        { class: 'grow' },
        h('strong', null, p.name),
        p.version ? h('span', { class: 'muted mono small' }, ` ${p.version}`) : null,
        p.description ? h('div', { class: 'muted small' }, p.description) : null,
        p.ok
          ? null
          : h('div', { class: 'warn-text small' }, t('install.market.cannotInstall', { reason: p.reason ?? '' })),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'btn btn-small',
          'data-testid': 'market-install',
          'aria-label': t('install.market.installLabel', { id }),
          disabled: !p.ok || this.busy,
          onclick: () => {
            // the form installs it, so a refusal (Force) is answered in one place
            this.source.value = id;
            this.ref.value = this.path.value = this.name.value = '';
            this.forceLabel.hidden = true;
            void this.install();
          },
        },
        t('install.dialog.install'),
      ),
    );
  }

  private async addMarket(): Promise<void> {
    if (this.adding) return;
    const source = this.marketSource.value.trim();
    this.marketIssues = [];
    if (!source) {
      this.marketNotice = { kind: 'error', text: t('install.market.noSource') };
      this.renderMarkets();
      this.marketSource.focus();
      return;
    }
    this.adding = true;
    this.marketNotice = null;
    this.renderMarkets();
    try {
      const r = await api.addMarketplace(source, this.marketName.value);
      this.marketNotice = {
        kind: 'ok',
        text: r.warnings?.length
          ? t('install.market.addedWarnings', { name: r.name, n: r.plugins, warnings: r.warnings.join('; ') })
          : t('install.market.added', { name: r.name, n: r.plugins }),
      };
      this.marketSource.value = this.marketName.value = '';
    } catch (e) {
      this.marketNotice = { kind: 'error', text: t('install.market.notAdded', { msg: errorText(e) }) };
      this.marketIssues = e instanceof ApiError ? (e.body.issues ?? []) : [];
    } finally {
      this.adding = false;
      await this.loadMarkets();
    }
  }

  private async removeMarket(m: Marketplace): Promise<void> {
    try {
      const r = await api.removeMarketplace(m.name);
      this.marketNotice = {
        kind: 'ok',
        text: r.deleted
          ? t('install.market.removed', { name: r.name })
          : t('install.market.removedKept', { name: r.name, path: tilde(r.path, this.ctx.index()?.doc.home) }),
      };
    } catch (e) {
      this.marketNotice = { kind: 'error', text: t('install.market.notRemoved', { msg: errorText(e) }) };
    }
    this.marketIssues = [];
    await this.loadMarkets();
  }
}
