// Settings: skillPluginPaths (add/remove), skillsEnabled overrides, how long activity is kept
// (activityRetentionDays), the open workspace and its trust. Path and name edits go to the settings draft (saved from the save bar); opening a
// workspace and trusting it are immediate calls, since the backend owns both.

import { api, errorText } from '../bridge';
import { badge, h, mount, tilde } from '../dom';
import type { CatalogIndex } from '../search';
import type { Ctx } from './ctx';

export class SettingsView {
  readonly el: HTMLElement;
  private readonly ctx: Ctx;
  private readonly paths: HTMLElement;
  private readonly pathInput: HTMLInputElement;
  private readonly enabledList: HTMLElement;
  private readonly enabledInput: HTMLInputElement;
  private readonly skillIds: HTMLDataListElement;
  private readonly wsInput: HTMLInputElement;
  private readonly wsState: HTMLElement;
  private readonly trust: HTMLInputElement;
  private readonly wsStatus: HTMLElement;
  private readonly trusted: HTMLElement;
  private readonly retention: HTMLInputElement;
  private ix: CatalogIndex | null = null;
  private wsBusy = false;

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    const s = ctx.settings;
    this.paths = h('ul', { class: 'edit-list', 'data-testid': 'settings-paths' });
    this.pathInput = h('input', {
      type: 'text',
      class: 'grow mono',
      placeholder: '~/src/my-plugin',
      'aria-label': 'New skill plugin path',
      'data-testid': 'settings-path-input',
      spellcheck: 'false',
    });
    const addPath = () => {
      if (s.addPath(this.pathInput.value)) this.pathInput.value = '';
      this.pathInput.focus();
    };
    this.pathInput.addEventListener('keydown', (e) => e.key === 'Enter' && addPath());
    this.enabledList = h('ul', { class: 'edit-list', 'data-testid': 'settings-enabled' });
    this.skillIds = h('datalist', { id: 'skill-ids' });
    this.enabledInput = h('input', {
      type: 'text',
      class: 'grow mono',
      list: 'skill-ids',
      placeholder: 'skill or plugin:skill',
      'aria-label': 'Skill to disable',
      'data-testid': 'settings-enabled-input',
      spellcheck: 'false',
    });
    const addEnabled = () => {
      const id = this.enabledInput.value.trim();
      if (!id) return;
      s.setEnabled(id, false);
      this.enabledInput.value = '';
      this.enabledInput.focus();
    };
    this.enabledInput.addEventListener('keydown', (e) => e.key === 'Enter' && addEnabled());

    this.retention = h('input', {
      type: 'number',
      min: '0',
      step: '1',
      inputmode: 'numeric',
      class: 'retention-input',
      id: 'settings-retention',
      'aria-describedby': 'retention-help',
      'data-testid': 'settings-retention',
    });
    this.retention.addEventListener('input', () => s.setRetention(this.retention.value));

    this.wsInput = h('input', {
      type: 'text',
      class: 'grow mono',
      placeholder: '/path/to/project',
      'aria-label': 'Workspace folder',
      'data-testid': 'workspace-path',
      spellcheck: 'false',
    });
    this.wsInput.addEventListener('keydown', (e) => e.key === 'Enter' && this.openWorkspace(this.wsInput.value.trim()));
    this.wsState = h('p', { class: 'small', 'data-testid': 'workspace-state' });
    this.trust = h('input', {
      type: 'checkbox',
      role: 'switch',
      'data-testid': 'workspace-trust',
      'aria-describedby': 'trust-warning',
    });
    this.trust.addEventListener('change', () => this.setTrust(this.trust.checked));
    this.wsStatus = h('p', { class: 'notice', 'data-testid': 'workspace-status', role: 'status', hidden: true });
    this.trusted = h('ul', { class: 'plain mono small', 'data-testid': 'settings-trusted' });

    this.el = h(
      'div',
      { class: 'settings-page' },
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'h-paths' },
        h('h3', { id: 'h-paths' }, 'Skill plugin paths'),
        h(
          'p',
          { class: 'muted small' },
          'Extra plugin folders to catalog (',
          h('code', null, 'skillPluginPaths'),
          '). Their skills are untrusted. ',
          h('code', null, '~'),
          ' is your home folder.',
        ),
        this.paths,
        h(
          'div',
          { class: 'row' },
          this.pathInput,
          h(
            'button',
            { type: 'button', class: 'btn', 'data-testid': 'settings-path-add', onclick: addPath },
            'Add path',
          ),
        ),
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'h-enabled' },
        h('h3', { id: 'h-enabled' }, 'Skill switches'),
        h(
          'p',
          { class: 'muted small' },
          'Skills listed here are switched off or on explicitly (',
          h('code', null, 'skillsEnabled'),
          '); every other skill is on. Switch skills from the Skills tab, or add one by name.',
        ),
        this.enabledList,
        h(
          'div',
          { class: 'row' },
          this.enabledInput,
          this.skillIds,
          h(
            'button',
            { type: 'button', class: 'btn', 'data-testid': 'settings-enabled-add', onclick: addEnabled },
            'Switch off',
          ),
        ),
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'h-retention' },
        h('h3', { id: 'h-retention' }, 'Activity'),
        h(
          'div',
          { class: 'row' },
          h('label', { for: 'settings-retention' }, 'Keep activity for'),
          this.retention,
          h('span', null, 'days (0 keeps all)'),
        ),
        h(
          'p',
          { class: 'muted small', id: 'retention-help' },
          'Skill uses and MCP tool calls older than this are deleted the next time activity is read (',
          h('code', null, 'activityRetentionDays'),
          '). Deleted records do not come back when you raise the number.',
        ),
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'h-ws' },
        h('h3', { id: 'h-ws' }, 'Workspace'),
        h(
          'p',
          { class: 'muted small' },
          'A project folder whose skills join the catalog (layer 3). Empty closes the workspace.',
        ),
        h(
          'div',
          { class: 'row' },
          this.wsInput,
          h(
            'button',
            {
              type: 'button',
              class: 'btn',
              'data-testid': 'workspace-open',
              onclick: () => this.openWorkspace(this.wsInput.value.trim()),
            },
            'Open',
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'btn btn-quiet',
              'data-testid': 'workspace-close',
              onclick: () => this.openWorkspace(''),
            },
            'Close',
          ),
        ),
        this.wsState,
        h('label', { class: 'switch-row' }, this.trust, h('span', null, h('strong', null, 'Trust this workspace'))),
        h(
          'p',
          { class: 'warning-text small', id: 'trust-warning' },
          'Trusting a workspace lets its MCP servers (',
          h('code', null, '.cursor/mcp.json'),
          ', ',
          h('code', null, '.mcp.json'),
          ') load: they can run programs and reach the network. Trust only projects you know.',
        ),
        this.wsStatus,
        h('h4', null, 'Trusted workspaces'),
        this.trusted,
      ),
      this.startAtLogin,
      this.about,
    );
    s.onChange(() => this.render());
    void this.loadVersion();
    void this.loadAutostart();
  }

  /** Start at login: the XDG autostart entry, which starts Plugboard in the tray (--hidden). */
  private readonly loginSwitch = h('input', {
    type: 'checkbox',
    'data-testid': 'autostart',
    onchange: () => void this.setAutostart(),
  });
  private readonly loginState = h('p', { class: 'muted small', 'data-testid': 'autostart-state' });
  private readonly startAtLogin = h(
    'section',
    { class: 'card', 'aria-labelledby': 'h-login' },
    h('h3', { id: 'h-login' }, 'Start at login'),
    h(
      'label',
      { class: 'switch-row' },
      this.loginSwitch,
      h(
        'span',
        null,
        h('strong', null, 'Start Plugboard when I log in'),
        ' — in the tray, the window hidden until you open it',
      ),
    ),
    this.loginState,
  );

  private showAutostart(st: { enabled: boolean; path: string }): void {
    this.loginSwitch.checked = st.enabled;
    this.loginState.textContent = st.enabled ? `On: ${st.path}` : `Off (the entry would be ${st.path})`;
  }

  private async loadAutostart(): Promise<void> {
    try {
      this.showAutostart(await api.autostart());
    } catch (e) {
      this.loginState.textContent = `Cannot read the login entry: ${errorText(e)}`;
    }
  }

  private async setAutostart(): Promise<void> {
    const on = this.loginSwitch.checked;
    this.loginSwitch.disabled = true;
    try {
      this.showAutostart(await api.setAutostart(on));
    } catch (e) {
      this.loginSwitch.checked = !on;
      this.loginState.textContent = errorText(e);
    } finally {
      this.loginSwitch.disabled = false;
    }
  }

  /** The About card: which Plugboard this is (Version). */
  private readonly about = h(
    'section',
    { class: 'card', 'aria-labelledby': 'h-about', 'data-testid': 'about' },
    h('h3', { id: 'h-about' }, 'About Plugboard'),
    h('p', { class: 'muted small', 'data-testid': 'about-version' }, '…'),
  );

  private async loadVersion(): Promise<void> {
    const line = this.about.querySelector('[data-testid="about-version"]') as HTMLElement;
    try {
      const v = await api.version();
      line.replaceChildren(
        h('strong', null, `Plugboard ${v.version}`),
        v.commit ? h('span', { class: 'mono' }, ` (${v.commit.slice(0, 12)})`) : '',
        v.buildDate ? `, built ${new Date(v.buildDate).toLocaleString()}` : '',
        `, ${v.go}`,
        v.wails ? `, Wails ${v.wails}` : '',
      );
    } catch (e) {
      line.textContent = `The version could not be read: ${errorText(e)}`;
    }
  }

  setIndex(ix: CatalogIndex): void {
    this.ix = ix;
    if (document.activeElement !== this.wsInput) this.wsInput.value = ix.doc.workspace ?? '';
    mount(
      this.skillIds,
      ...[...new Set(ix.doc.skills.map((s) => s.id))].slice(0, 2000).map((id) => h('option', { value: id })),
    );
    this.render();
  }

  private render(): void {
    const s = this.ctx.settings;
    const d = s.draft;
    const home = this.ix?.doc.home ?? '';
    if (d) {
      mount(
        this.paths,
        ...(d.skillPluginPaths.length
          ? d.skillPluginPaths.map((p, i) =>
              h(
                'li',
                { 'data-testid': 'settings-path', 'data-path': p },
                h('code', { class: 'grow' }, p),
                s.saved?.skillPluginPaths.includes(p) ? null : badge('unsaved', 'info'),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'btn btn-quiet btn-small',
                    'aria-label': `Remove ${p}`,
                    'data-testid': 'settings-path-remove',
                    onclick: () => s.removePath(i),
                  },
                  'Remove',
                ),
              ),
            )
          : [h('li', { class: 'muted' }, 'No extra paths.')]),
      );
      if (document.activeElement !== this.retention) this.retention.value = String(d.activityRetentionDays ?? 0);
      const ids = Object.keys(d.skillsEnabled).sort();
      mount(
        this.enabledList,
        ...(ids.length
          ? ids.map((id) => {
              const sw = h('input', {
                type: 'checkbox',
                role: 'switch',
                checked: d.skillsEnabled[id],
                'aria-label': `Enable ${id}`,
                'data-testid': 'settings-enabled-switch',
              });
              sw.addEventListener('change', () => s.setEnabled(id, sw.checked, true));
              return h(
                'li',
                { 'data-testid': 'settings-enabled-item', 'data-id': id },
                h(
                  'label',
                  { class: 'check grow' },
                  sw,
                  h('code', null, id),
                  h('span', { class: 'muted small' }, d.skillsEnabled[id] ? ' on' : ' off'),
                ),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'btn btn-quiet btn-small',
                    'aria-label': `Forget ${id}`,
                    onclick: () => s.removeEnabled(id),
                  },
                  'Forget',
                ),
              );
            })
          : [h('li', { class: 'muted' }, 'Every skill is on.')]),
      );
      mount(
        this.trusted,
        ...(d.trustedWorkspaces.length
          ? d.trustedWorkspaces.map((w) => h('li', null, tilde(w, home)))
          : [h('li', { class: 'muted' }, 'None.')]),
      );
    }
    const doc = this.ix?.doc;
    const ws = doc?.workspace;
    this.wsState.textContent = ws
      ? `Open: ${tilde(ws, home)} (${doc!.workspaceTrusted ? 'trusted' : 'not trusted'})`
      : 'No workspace is open.';
    this.trust.checked = !!doc?.workspaceTrusted;
    this.trust.disabled = !ws || this.wsBusy;
  }

  private status(kind: 'ok' | 'error', text: string): void {
    this.wsStatus.hidden = false;
    this.wsStatus.className = `notice notice-${kind}`;
    this.wsStatus.textContent = text;
  }

  private async openWorkspace(path: string): Promise<void> {
    if (this.wsBusy) return;
    this.wsBusy = true;
    this.render();
    try {
      const doc = await this.ctx.docCall(() => api.openWorkspace(path));
      this.status('ok', doc.workspace ? `Opened ${tilde(doc.workspace, doc.home)}.` : 'Workspace closed.');
    } catch (e) {
      this.status('error', `Cannot open the workspace: ${errorText(e)}`);
    } finally {
      this.wsBusy = false;
      this.render();
    }
  }

  private async setTrust(trusted: boolean): Promise<void> {
    if (this.wsBusy) return;
    this.wsBusy = true;
    this.render();
    try {
      await this.ctx.docCall(() => api.setWorkspaceTrust(trusted));
      this.status('ok', trusted ? 'Workspace trusted: its MCP servers are loaded.' : 'Workspace no longer trusted.');
      // The trust list lives in settings.json: take the new hash, keep unsaved edits.
      await this.ctx.settings.load(true);
    } catch (e) {
      this.status('error', `Cannot change trust: ${errorText(e)}`);
    } finally {
      this.wsBusy = false;
      this.render();
    }
  }
}
