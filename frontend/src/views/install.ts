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
import { badge, h, mount, plural, tilde } from '../dom';
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
  if (u.from.version !== u.to.version)
    parts.push(`version ${u.from.version || '(none)'} → ${u.to.version || '(none)'}`);
  if (u.from.commit !== u.to.commit && u.to.commit)
    parts.push(`commit ${short(u.from.commit)} → ${short(u.to.commit)}`);
  return parts.join(', ') || 'its content changed';
}

/** A refusal's override the page offers: Force for an invalid package or a taken id. */
const FORCE_LABEL: Record<string, string> = {
  'invalid-package': 'Force: install it even though it has errors (it stays unassignable until they are fixed)',
  exists: 'Force: replace the installed plugin of that id',
};

/** What the user reads after a refusal, beside the backend's message (which names the file and the fix). */
const REASON_HINT: Record<string, string> = {
  exists: 'Tick Force below to replace it, uninstall it first, or give another name.',
};

/** A git commit for people: its first 12 hex digits. */
function short(commit: string | undefined): string {
  return commit ? commit.slice(0, 12) : '';
}

function serverLine(s: InstallServer): string {
  if (s.executable || !s.origin)
    return `${s.name}: ${s.type || 'stdio'}, runs ${s.executable ?? '?'} (${plural(s.args ?? 0, 'argument')})`;
  return `${s.name}: ${s.type}, connects to ${s.origin}`;
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
      'Check for updates',
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
    if (id) this.busy.set(id, 'Checking…');
    else {
      this.checking = true;
      this.checkBtn.disabled = true;
      this.checkBtn.textContent = 'Checking…';
      if (announce) this.notice.hidden = true;
    }
    this.changed();
    try {
      const ups = (await api.checkUpdates(id)) ?? [];
      if (!id) this.updates.clear();
      for (const u of ups) this.updates.set(u.id, u);
      if (id) this.cardNotice.delete(id);
      else if (announce) {
        const n = ups.filter((u) => this.available(u)).length;
        const failed = ups.filter((u) => u.error).length;
        this.say(
          failed ? 'error' : 'info',
          ups.length === 0
            ? 'No plugin was installed with Install, so there is nothing to update.'
            : `${n ? plural(n, 'update') + ' available' : 'Every installed plugin is up to date'}` +
                (failed ? `; ${plural(failed, 'plugin')} could not be checked (see its detail).` : '.'),
        );
      }
      this.checkError = '';
    } catch (e) {
      if (id) this.cardNotice.set(id, { notice: { kind: 'error', text: `Not checked: ${errorText(e)}` } });
      else {
        this.checkError = errorText(e);
        if (announce) this.say('error', `Updates not checked: ${this.checkError}`);
      }
    } finally {
      if (id) this.busy.delete(id);
      else {
        this.checking = false;
        this.checkBtn.disabled = false;
        this.checkBtn.textContent = 'Check for updates';
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
    const b = badge('update available', 'info', 'Check for updates found a new version; see its detail');
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
      'Install…',
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
      this.say('error', `Installed ${res.id}, but the catalog could not be read again: ${errorText(e)}. Rescan.`);
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
      row('Source', h('span', { class: 'mono wrap' }, tilde(e.source, home)), 'installed-source');
      row('Kind', e.kind);
      row('Ref', e.ref);
      row('Path', e.path && h('code', null, e.path));
      row('Commit', e.commit && h('code', { title: e.commit }, short(e.commit)), 'installed-commit');
      row('Archive', e.archive && h('code', null, e.archive.slice(0, 19)));
      row('Installed', new Date(e.installedAt).toLocaleString());
    }
    const parts: Array<Node | null> = [h('h3', { id: 'h-installed' }, 'Installed')];
    if (last) parts.push(...this.outcome(last));
    if (e) parts.push(h('dl', { class: 'meta' }, ...rows));
    else parts.push(h('p', { class: 'muted small' }, this.installedError || 'Reading plugins.lock.json…'));
    if (e) parts.push(...this.updateState(p.id));
    const running = this.busy.get(p.id);
    const action = (testid: string, label: string, run: () => void, aria?: string) =>
      h(
        'button',
        {
          type: 'button',
          class: 'btn btn-small',
          'data-testid': testid,
          disabled: !!running || !e,
          'aria-label': aria,
          onclick: run,
        },
        label,
      );
    parts.push(
      h(
        'div',
        { class: 'row install-actions' },
        action('check-update', 'Check for updates', () => void this.check(p.id), `Check ${p.id} for updates`),
        action('update', 'Update', () => void this.update(p.id)),
        action('rollback', 'Rollback', () => void this.rollback(p.id)),
        action('uninstall', 'Uninstall', () => void this.uninstall(p.id, false)),
        running ? h('span', { class: 'muted small', 'data-testid': 'installed-busy' }, running) : null,
      ),
    );
    if (this.live?.id === p.id && this.live.lines.length)
      parts.push(h('ol', { class: 'progress-lines mono' }, ...this.live.lines.map((l) => h('li', null, l))));
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
                ...n.targets.map((t) => h('li', null, h('code', { class: 'name-chip' }, t))),
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
                'Uninstall anyway',
              )
            : null,
          n.progress?.length
            ? h(
                'details',
                { class: 'small' },
                h('summary', null, 'Progress'),
                h('ol', { class: 'progress-lines mono' }, ...n.progress.map((l) => h('li', null, l))),
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
    const how = r.forced ? 'installed with Force: it has errors' : r.valid ? 'valid' : 'invalid by the specification';
    const at = r.commit ? ` at ${short(r.commit)}` : '';
    const out: Node[] = [
      h(
        'p',
        { class: `notice notice-${r.forced ? 'error' : 'ok'}`, 'data-testid': 'install-outcome' },
        `${r.replaced ? 'Replaced' : 'Installed'} ${r.id} from ${r.marketplace ?? tilde(r.source, this.ctx.index()?.doc.home)}${at}; ${how}.`,
      ),
    ];
    if (r.credentialsStripped)
      out.push(
        h(
          'p',
          { class: 'muted small' },
          'The user name or password in the URL was used for this fetch only and is not stored; give git a credential helper for later updates.',
        ),
      );
    if (r.servers.length)
      out.push(
        h(
          'div',
          { class: 'notice notice-info', 'data-testid': 'install-servers' },
          h(
            'p',
            null,
            `${plural(r.servers.length, 'MCP server')}, not acknowledged: a launch leaves them out until you acknowledge them. ` +
              'Assign the plugin in Assignments, then acknowledge them in the Launch card of its target.',
          ),
          h(
            'ul',
            { class: 'plain' },
            ...r.servers.map((s) =>
              h(
                'li',
                { 'data-testid': 'install-server', 'data-name': s.name },
                h('code', null, serverLine(s)),
                ' ',
                badge('not acknowledged', 'warning'),
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
          h('summary', null, 'Progress'),
          h('ol', { class: 'progress-lines mono' }, ...r.progress.map((l) => h('li', null, l))),
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
          `Not checked: ${u.error}`,
        ),
      ];
    if (u.pinned)
      return [
        h(
          'p',
          { class: 'muted small', 'data-testid': 'update-state', 'data-state': 'pinned' },
          `Pinned to commit ${short(u.ref)}: up to date (install another ref to move it).`,
        ),
      ];
    if (!this.available(u))
      return [h('p', { class: 'muted small', 'data-testid': 'update-state', 'data-state': 'current' }, 'Up to date.')];
    const c = u.changes;
    const lines: Node[] = [];
    const item = (text: string) => lines.push(h('li', null, text));
    if (c.version) item(`version ${c.version[0] || '(none)'} → ${c.version[1] || '(none)'}`);
    if (u.from.commit && u.to.commit && u.from.commit !== u.to.commit)
      item(`commit ${short(u.from.commit)} → ${short(u.to.commit)}`);
    const delta = (what: string, d: NameDelta) => {
      const parts = (
        [
          ['added', d.added],
          ['removed', d.removed],
          ['changed', d.changed],
        ] as const
      )
        .filter(([, names]) => names.length)
        .map(([verb, names]) => `${verb} ${names.join(', ')}`);
      if (parts.length) item(`${what}: ${parts.join('; ')}`);
    };
    delta('skills', c.skills);
    delta('commands', c.commands);
    delta('MCP servers', c.servers);
    for (const n of c.needsAck)
      item(
        `MCP server ${n.server} needs acknowledgment` +
          (n.targets.length
            ? ` for ${n.targets.join(', ')} (in the Launch card of each)`
            : ' in each target that assigns it') +
          ': a launch leaves it out until then',
      );
    if (u.modified) item('the installed folder was edited by hand: the update replaces it (Rollback brings it back)');
    if (!lines.length) item('its content changed');
    return [
      h(
        'div',
        { class: 'notice notice-info', 'data-testid': 'update-state', 'data-state': 'available' },
        h('strong', null, 'Update available'),
        h('ul', { class: 'update-summary', 'data-testid': 'update-summary' }, ...lines),
      ),
    ];
  }

  /** Update: the new version in place, the catalog re-read, the outcome in the detail. */
  private async update(id: string): Promise<void> {
    if (this.busy.has(id)) return;
    this.busy.set(id, 'Updating…');
    this.cardNotice.delete(id);
    this.live = { id, lines: [] };
    this.changed();
    try {
      const r = await api.update(id);
      const u = r.updates.find((x) => x.id === id);
      this.updates.delete(id);
      if (this.last?.id === id) this.last = null;
      let text = `${id} is up to date: nothing to update.`;
      if (u?.pinned) text = `${id} is pinned to commit ${short(u.ref)}: nothing to update.`;
      else if (u?.applied)
        text = `Updated ${id}: ${versionText(u)}. The previous version is kept: Rollback brings it back.`;
      const ack = u?.applied ? u.changes.needsAck.map((n) => n.server) : [];
      if (ack.length)
        text += ` ${plural(ack.length, 'MCP server')} (${ack.join(', ')}) need acknowledgment in the Launch card before a launch starts them.`;
      this.cardNotice.set(id, { notice: { kind: 'ok', text }, progress: r.progress });
      await this.ctx.docCall(api.catalog).catch(() => {});
    } catch (e) {
      const body: ApiErrorBody | undefined = e instanceof ApiError ? e.body : undefined;
      this.cardNotice.set(id, {
        notice: { kind: 'error', text: `Not updated: ${errorText(e)}` },
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
    this.busy.set(id, 'Rolling back…');
    this.cardNotice.delete(id);
    this.changed();
    try {
      const r = await api.rollback(id);
      this.updates.delete(id);
      if (this.last?.id === id) this.last = null;
      const at = r.commit ? ` (commit ${short(r.commit)})` : '';
      this.cardNotice.set(id, {
        notice: {
          kind: 'ok',
          text: `Rolled back ${id} to the version the last update replaced${at}. Rollback again returns to the newer one.`,
        },
      });
      await this.ctx.docCall(api.catalog).catch(() => {});
    } catch (e) {
      this.cardNotice.set(id, { notice: { kind: 'error', text: `Not rolled back: ${errorText(e)}` } });
    } finally {
      this.busy.delete(id);
      await this.load();
    }
  }

  private async uninstall(id: string, force: boolean): Promise<void> {
    if (this.busy.has(id)) return;
    if (!force) {
      const e = this.installed.get(id);
      const v = await openModal({
        title: `Uninstall ${id}?`,
        testid: 'uninstall-dialog',
        body: [
          h(
            'p',
            null,
            `Its folder ${tilde(this.ctx.index()?.doc.plugboardHome ?? '', this.ctx.index()?.doc.home)}/plugins/${id} and its entry in plugins.lock.json are removed.` +
              (e ? ` Install it again from ${tilde(e.source, this.ctx.index()?.doc.home)} to get it back.` : ''),
          ),
        ],
        actions: [
          { label: 'Cancel', value: 'cancel', testid: 'uninstall-cancel' },
          { label: 'Uninstall', value: 'uninstall', primary: true, testid: 'uninstall-confirm' },
        ],
        cancel: 'cancel',
      });
      if (v !== 'uninstall') return;
    }
    this.busy.set(id, 'Uninstalling…');
    this.cardNotice.delete(id);
    this.changed();
    try {
      const r = await api.uninstall(id, force);
      if (this.last?.id === id) this.last = null;
      this.updates.delete(id);
      const still = r.targets.length ? `; ${r.targets.join(', ')} still name it: remove it there in Assignments` : '';
      this.say('ok', `Uninstalled ${id}${still}.`);
      await this.ctx.docCall(api.catalog).catch((e) => this.say('error', `Uninstalled ${id}; ${errorText(e)}`));
    } catch (e) {
      const body: ApiErrorBody | undefined = e instanceof ApiError ? e.body : undefined;
      this.cardNotice.set(id, {
        notice: { kind: 'error', text: `Not uninstalled: ${errorText(e)}` },
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
    this.source = field('install-source', 'Source', 'https://github.com/acme/greeter.git');
    this.source.classList.add('grow');
    this.ref = field('install-ref', 'Ref', 'default branch');
    this.path = field('install-path', 'Path inside the source', 'its root');
    this.name = field('install-name', 'Name (the plugin id)', "the manifest's name");
    for (const el of [this.source, this.ref, this.path, this.name])
      el.addEventListener('keydown', (e) => e.key === 'Enter' && void this.install());
    this.force = h('input', { type: 'checkbox', 'data-testid': 'install-force' });
    this.forceText = h('span', null);
    this.forceLabel = h('label', { class: 'check', hidden: true }, this.force, this.forceText);
    this.submit = h(
      'button',
      { type: 'button', class: 'btn btn-primary', 'data-testid': 'install-submit', onclick: () => void this.install() },
      'Install',
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
      placeholder: 'Search marketplace plugins',
      'aria-label': 'Search marketplace plugins by name or description',
      'data-testid': 'market-search',
      autocomplete: 'off',
      spellcheck: 'false',
    });
    this.search.addEventListener('input', () => this.renderMarkets());
    this.markets = h('div', { class: 'market-list', 'data-testid': 'market-list' });
    this.marketSource = field('market-source', 'Marketplace source', '/path/to/marketplace or owner/name');
    this.marketSource.classList.add('grow');
    this.marketSource.addEventListener('keydown', (e) => e.key === 'Enter' && void this.addMarket());
    this.marketName = field('market-name', 'Marketplace name', "the file's name");
    this.marketAdd = h(
      'button',
      { type: 'button', class: 'btn', 'data-testid': 'market-add', onclick: () => void this.addMarket() },
      'Add marketplace',
    );
    this.marketStatus = h('div', { 'data-testid': 'market-status', role: 'status', 'aria-live': 'polite' });
    this.offProgress = on('install:progress', (ev) => {
      if (!this.busy || !ev?.line) return;
      this.lines.push(ev.line);
      this.render();
    });

    const label = (forId: string, text: string) => h('label', { for: forId, class: 'field-label' }, text);
    this.handle = openDialog({
      title: 'Install a plugin',
      testid: 'install-dialog',
      wide: true,
      onClose: () => {
        this.offProgress();
        this.deps.closed();
      },
      body: [
        h(
          'section',
          { class: 'install-form', 'aria-label': 'Install from a source' },
          label('install-source', 'Source'),
          h(
            'p',
            { class: 'muted small' },
            'A git URL, GitHub owner/repo, the full path of a plugin folder, a local git repository or a .zip/.tar.gz file, or PLUGIN@MARKETPLACE.',
          ),
          h('div', { class: 'row' }, this.source, this.submit),
          h(
            'div',
            { class: 'install-options' },
            h('div', null, label('install-ref', 'Ref (git)'), this.ref),
            h('div', null, label('install-path', 'Path inside the source'), this.path),
            h('div', null, label('install-name', 'Name (the plugin id)'), this.name),
          ),
          this.forceLabel,
          this.status,
        ),
        h(
          'section',
          { class: 'install-markets', 'aria-labelledby': 'h-markets' },
          h('h3', { id: 'h-markets' }, 'Marketplaces'),
          this.search,
          this.markets,
          label('market-source', 'Add a marketplace'),
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
      this.notice = {
        kind: 'error',
        text: `${v} is a relative path: type the folder's or archive's full path (or ~/…).`,
      };
      return '';
    }
    if (!v) this.notice = { kind: 'error', text: 'Type a source first.' };
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
      this.notice = {
        kind: 'error',
        text: `Not installed: ${errorText(e).replace(/\.?$/, '.')}${REASON_HINT[reason] ? ` ${REASON_HINT[reason]}` : ''}`,
      };
      this.issues = body?.issues ?? [];
      if (FORCE_LABEL[reason]) {
        this.forceLabel.hidden = false;
        this.forceText.textContent = ` ${FORCE_LABEL[reason]}`;
        this.force.checked = false;
      }
    }
    this.busy = false;
    this.render();
  }

  private render(): void {
    this.submit.disabled = this.busy;
    this.submit.textContent = this.busy ? 'Installing…' : 'Install';
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
            { class: 'progress-lines mono small', 'data-testid': 'install-progress', 'aria-label': 'Progress' },
            ...this.lines.map((l) => h('li', null, l)),
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
    if (this.listError) items.push(h('p', { class: 'notice notice-error' }, `Marketplaces: ${this.listError}`));
    else if (!this.list) items.push(h('p', { class: 'muted' }, 'Loading marketplaces…'));
    else if (!this.list.length)
      items.push(
        h(
          'p',
          { class: 'muted', 'data-testid': 'market-none' },
          'No marketplace is added. Add one below: a folder holding .claude-plugin/marketplace.json, a git URL or GitHub owner/name.',
        ),
      );
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
              m.commit ? ` at ${short(m.commit)}` : '',
            ),
            h('span', { class: 'muted small' }, plural(m.plugins.length, 'plugin')),
            h(
              'button',
              {
                type: 'button',
                class: 'btn btn-small btn-quiet',
                'data-testid': 'market-remove',
                'aria-label': `Remove marketplace ${m.name}`,
                onclick: () => void this.removeMarket(m),
              },
              'Remove',
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
              ? h('li', { class: 'muted small' }, 'No plugin of this marketplace matches the search.')
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
    this.marketAdd.textContent = this.adding ? 'Adding…' : 'Add marketplace';
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
        p.ok ? null : h('div', { class: 'warn-text small' }, `Cannot be installed: ${p.reason ?? ''}`),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'btn btn-small',
          'data-testid': 'market-install',
          'aria-label': `Install ${id}`,
          disabled: !p.ok || this.busy,
          onclick: () => {
            // the form installs it, so a refusal (Force) is answered in one place
            this.source.value = id;
            this.ref.value = this.path.value = this.name.value = '';
            this.forceLabel.hidden = true;
            void this.install();
          },
        },
        'Install',
      ),
    );
  }

  private async addMarket(): Promise<void> {
    if (this.adding) return;
    const source = this.marketSource.value.trim();
    this.marketIssues = [];
    if (!source) {
      this.marketNotice = { kind: 'error', text: 'Type the marketplace’s source first.' };
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
        text: `Added marketplace ${r.name} (${plural(r.plugins, 'plugin')}).${r.warnings?.length ? ` Warnings: ${r.warnings.join('; ')}` : ''}`,
      };
      this.marketSource.value = this.marketName.value = '';
    } catch (e) {
      this.marketNotice = { kind: 'error', text: `Not added: ${errorText(e)}` };
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
          ? `Removed marketplace ${r.name}; its clone is deleted.`
          : `Removed marketplace ${r.name}; the folder ${tilde(r.path, this.ctx.index()?.doc.home)} is left as it is.`,
      };
    } catch (e) {
      this.marketNotice = { kind: 'error', text: `Not removed: ${errorText(e)}` };
    }
    this.marketIssues = [];
    await this.loadMarkets();
  }
}
