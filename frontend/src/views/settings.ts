// Settings: skillPluginPaths (add/remove), skillsEnabled overrides, how long activity is kept
// (activityRetentionDays), the open workspace and its trust. Path and name edits go to the settings draft (saved from the save bar); opening a
// workspace and trusting it are immediate calls, since the backend owns both. The page's language
// is kept in this browser's storage (i18n), not in settings.json; a change reloads the page.

import { api, errorText } from '../bridge';
import { badge, h, mount, tilde } from '../dom';
import { type Choice, fmtDateTime, type Lang, LANGS, setChoice, storedChoice, systemLang, t } from '../i18n';
import type { CatalogIndex } from '../search';
import type { Ctx } from './ctx';

/** Each language's name in its own language, as language pickers show them. */
const LANG_NAME: Record<Lang, string> = {
  en: 'English', // i18n-ignore: a language's own name
  'zh-CN': '简体中文',
};

/** sessionStorage key of the tab the page opens on after the language switch reloads it. */
export const REOPEN_TAB_KEY = 'plugboard.reopen-tab';

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
      'aria-label': t('settings.paths.inputLabel'),
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
      placeholder: t('settings.enabled.placeholder'),
      'aria-label': t('settings.enabled.inputLabel'),
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
      'aria-label': t('settings.workspace.inputLabel'),
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
        h('h3', { id: 'h-paths' }, t('settings.paths.title')),
        h(
          'p',
          { class: 'muted small' },
          t('settings.paths.helpBefore'),
          h('code', null, 'skillPluginPaths'), // i18n-ignore: the settings.json key
          t('settings.paths.helpMiddle'),
          h('code', null, '~'),
          t('settings.paths.helpAfter'),
        ),
        this.paths,
        h(
          'div',
          { class: 'row' },
          this.pathInput,
          h(
            'button',
            { type: 'button', class: 'btn', 'data-testid': 'settings-path-add', onclick: addPath },
            t('settings.paths.add'),
          ),
        ),
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'h-enabled' },
        h('h3', { id: 'h-enabled' }, t('settings.enabled.title')),
        h(
          'p',
          { class: 'muted small' },
          t('settings.enabled.helpBefore'),
          h('code', null, 'skillsEnabled'), // i18n-ignore: the settings.json key
          t('settings.enabled.helpAfter'),
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
            t('settings.enabled.add'),
          ),
        ),
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'h-retention' },
        h('h3', { id: 'h-retention' }, t('settings.activity.title')),
        h(
          'div',
          { class: 'row' },
          h('label', { for: 'settings-retention' }, t('settings.activity.keepFor')),
          this.retention,
          h('span', null, t('settings.activity.days')),
        ),
        h(
          'p',
          { class: 'muted small', id: 'retention-help' },
          t('settings.activity.helpBefore'),
          h('code', null, 'activityRetentionDays'), // i18n-ignore: the settings.json key
          t('settings.activity.helpAfter'),
        ),
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'h-ws' },
        h('h3', { id: 'h-ws' }, t('settings.workspace.title')),
        h('p', { class: 'muted small' }, t('settings.workspace.help')),
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
            t('settings.workspace.open'),
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'btn btn-quiet',
              'data-testid': 'workspace-close',
              onclick: () => this.openWorkspace(''),
            },
            t('settings.workspace.close'),
          ),
        ),
        this.wsState,
        h(
          'label',
          { class: 'switch-row' },
          this.trust,
          h('span', null, h('strong', null, t('settings.workspace.trust'))),
        ),
        h(
          'p',
          { class: 'warning-text small', id: 'trust-warning' },
          t('settings.workspace.trustWarningBefore'),
          h('code', null, '.cursor/mcp.json'),
          t('settings.workspace.trustWarningSep'),
          h('code', null, '.mcp.json'),
          t('settings.workspace.trustWarningAfter'),
        ),
        this.wsStatus,
        h('h4', null, t('settings.workspace.trustedList')),
        this.trusted,
      ),
      this.startAtLogin,
      this.language,
      this.about,
    );
    this.langSelect.value = storedChoice();
    s.onChange(() => {
      // the reason a language switch was refused goes once the draft is saved or discarded
      if (!s.dirty) this.langStatus.hidden = true;
      this.render();
    });
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
    h('h3', { id: 'h-login' }, t('settings.login.title')),
    h(
      'label',
      { class: 'switch-row' },
      this.loginSwitch,
      h('span', null, h('strong', null, t('settings.login.switch')), t('settings.login.switchNote')),
    ),
    this.loginState,
  );

  private showAutostart(st: { enabled: boolean; path: string }): void {
    this.loginSwitch.checked = st.enabled;
    this.loginState.textContent = t(st.enabled ? 'settings.login.on' : 'settings.login.off', { path: st.path });
  }

  private async loadAutostart(): Promise<void> {
    try {
      this.showAutostart(await api.autostart());
    } catch (e) {
      this.loginState.textContent = t('settings.login.cannotRead', { msg: errorText(e) });
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

  /**
   * The Language card: the system's language (named in the option), English or Chinese. The views
   * are built once, so a switch stores the choice and reloads the page; with unsaved settings it
   * would lose the draft, so it is refused until they are saved or discarded.
   */
  private readonly langSelect = h(
    'select',
    {
      id: 'settings-language',
      'aria-label': t('settings.language.selectLabel'),
      'aria-describedby': 'language-help',
      'data-testid': 'settings-language',
      onchange: () => this.switchLanguage(),
    },
    h('option', { value: 'system' }, t('settings.language.system', { name: LANG_NAME[systemLang()] })),
    ...LANGS.map((l) => h('option', { value: l }, LANG_NAME[l])),
  );
  private readonly langStatus = h('p', {
    class: 'notice notice-warning',
    role: 'status',
    'data-testid': 'settings-language-status',
    hidden: true,
  });
  private readonly language = h(
    'section',
    { class: 'card', 'aria-labelledby': 'h-language', 'data-testid': 'language' },
    h('h3', { id: 'h-language' }, t('settings.language.title')),
    h('div', { class: 'row' }, this.langSelect),
    h('p', { class: 'muted small', id: 'language-help' }, t('settings.language.help')),
    this.langStatus,
  );

  private switchLanguage(): void {
    const choice = this.langSelect.value as Choice;
    if (this.ctx.settings.dirty) {
      this.langSelect.value = storedChoice();
      this.langStatus.textContent = t('settings.language.dirty');
      this.langStatus.hidden = false;
      return;
    }
    this.langStatus.hidden = true;
    setChoice(choice);
    // the reloaded page opens here again, not on Plugins
    sessionStorage.setItem(REOPEN_TAB_KEY, 'settings');
    location.reload();
  }

  /** The About card: which Plugboard this is (Version). */
  private readonly about = h(
    'section',
    { class: 'card', 'aria-labelledby': 'h-about', 'data-testid': 'about' },
    h('h3', { id: 'h-about' }, t('settings.about.title')),
    h('p', { class: 'muted small', 'data-testid': 'about-version' }, '…'),
  );

  private async loadVersion(): Promise<void> {
    const line = this.about.querySelector('[data-testid="about-version"]') as HTMLElement;
    try {
      const v = await api.version();
      line.replaceChildren(
        h('strong', null, `Plugboard ${v.version}`), // i18n-ignore: the product's name
        v.commit ? h('span', { class: 'mono' }, ` (${v.commit.slice(0, 12)})`) : '',
        v.buildDate ? t('settings.about.built', { date: fmtDateTime(v.buildDate) }) : '',
        t('settings.about.go', { go: v.go }),
        v.wails ? t('settings.about.wails', { version: v.wails }) : '',
      );
    } catch (e) {
      line.textContent = t('settings.about.cannotRead', { msg: errorText(e) });
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
                s.saved?.skillPluginPaths.includes(p) ? null : badge(t('settings.paths.unsaved'), 'info'),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'btn btn-quiet btn-small',
                    'aria-label': t('settings.paths.removeLabel', { path: p }),
                    'data-testid': 'settings-path-remove',
                    onclick: () => s.removePath(i),
                  },
                  t('settings.paths.remove'),
                ),
              ),
            )
          : [h('li', { class: 'muted' }, t('settings.paths.none'))]),
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
                'aria-label': t('settings.enabled.switchLabel', { id }),
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
                  h(
                    'span',
                    { class: 'muted small' },
                    t(d.skillsEnabled[id] ? 'settings.enabled.on' : 'settings.enabled.off'),
                  ),
                ),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'btn btn-quiet btn-small',
                    'aria-label': t('settings.enabled.forgetLabel', { id }),
                    onclick: () => s.removeEnabled(id),
                  },
                  t('settings.enabled.forget'),
                ),
              );
            })
          : [h('li', { class: 'muted' }, t('settings.enabled.none'))]),
      );
      mount(
        this.trusted,
        ...(d.trustedWorkspaces.length
          ? d.trustedWorkspaces.map((w) => h('li', null, tilde(w, home)))
          : [h('li', { class: 'muted' }, t('settings.workspace.trustedNone'))]),
      );
    }
    const doc = this.ix?.doc;
    const ws = doc?.workspace;
    this.wsState.textContent = ws
      ? t(doc!.workspaceTrusted ? 'settings.workspace.openTrusted' : 'settings.workspace.openUntrusted', {
          path: tilde(ws, home),
        })
      : t('settings.workspace.none');
    this.trust.checked = !!doc?.workspaceTrusted;
    this.trust.disabled = !ws || this.wsBusy;
  }

  private status(kind: 'ok' | 'error', text: string): void {
    this.wsStatus.hidden = false;
    this.wsStatus.className = 'notice';
    this.wsStatus.classList.add(`notice-${kind}`);
    this.wsStatus.textContent = text;
  }

  private async openWorkspace(path: string): Promise<void> {
    if (this.wsBusy) return;
    this.wsBusy = true;
    this.render();
    try {
      const doc = await this.ctx.docCall(() => api.openWorkspace(path));
      this.status(
        'ok',
        doc.workspace
          ? t('settings.workspace.opened', { path: tilde(doc.workspace, doc.home) })
          : t('settings.workspace.closed'),
      );
    } catch (e) {
      this.status('error', t('settings.workspace.cannotOpen', { msg: errorText(e) }));
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
      this.status('ok', t(trusted ? 'settings.workspace.trustedNow' : 'settings.workspace.untrustedNow'));
      // The trust list lives in settings.json: take the new hash, keep unsaved edits.
      await this.ctx.settings.load(true);
    } catch (e) {
      this.status('error', t('settings.workspace.cannotTrust', { msg: errorText(e) }));
    } finally {
      this.wsBusy = false;
      this.render();
    }
  }
}
