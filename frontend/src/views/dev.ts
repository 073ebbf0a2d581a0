// Local development (U5): link a plugin folder an author is working on where the catalog finds it
// (Link: a symlink, or a synced copy, in $PLUGBOARD_HOME/plugins/ or ~/.cursor/plugins/local/),
// see every link with its validation (Links), and unlink it (Unlink). The folder comes from the
// window's native dialog (PickFolder) or, in a browser, a path field. Links are read again after
// every live reload, and each link shows its plugin's issues from the catalog document, so an
// author sees the file and the fix as soon as they save.

import { coalesced } from '../coalesce';
import { api, ApiError, isDesktop, errorText } from '../bridge';
import { h, mount, tilde } from '../dom';
import type { CatalogIndex } from '../search';
import type { LinkInto, LinkResult, Plugin } from '../types';
import { t } from '../i18n';
import type { Ctx } from './ctx';
import { intoLabel, linkItem } from './devlink';
import { TryPanel } from './try';

interface Notice {
  kind: 'ok' | 'error';
  text: string;
  /** A multi-line refusal (an invalid package: one issue a line, with file and fix). */
  detail?: string;
}

export class DevView {
  readonly el: HTMLElement;
  private readonly ctx: Ctx;
  private readonly path: HTMLInputElement;
  private readonly pick: HTMLButtonElement;
  private readonly name: HTMLInputElement;
  private readonly copy: HTMLInputElement;
  private readonly force: HTMLInputElement;
  private readonly linkBtn: HTMLButtonElement;
  private readonly into: Record<LinkInto, HTMLInputElement>;
  private readonly status: HTMLElement;
  private readonly list: HTMLElement;
  private readonly count: HTMLElement;
  /** The Try box, over the linked working copy chosen in tryLink. */
  private readonly tryPanel = new TryPanel('try-dev');
  private readonly tryLink: HTMLSelectElement;
  private ix: CatalogIndex | null = null;
  private links: LinkResult[] = [];
  private loaded = false;
  private loadError = '';
  private busy = false;
  private unlinking = new Set<string>();
  private notice: Notice | null = null;
  private listNotice: Notice | null = null;

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    this.tryLink = h('select', { id: 'try-dev-link', 'data-testid': 'try-dev-link', class: 'grow mono' });
    this.tryLink.addEventListener('change', () => this.renderTry());
    this.path = h('input', {
      type: 'text',
      id: 'dev-path',
      class: 'grow mono',
      placeholder: '~/src/my-plugin',
      'aria-label': t('dev.form.folder'),
      'data-testid': 'dev-path',
      spellcheck: 'false',
      autocomplete: 'off',
    });
    this.path.addEventListener('keydown', (e) => e.key === 'Enter' && void this.link());
    this.pick = h(
      'button',
      { type: 'button', class: 'btn', 'data-testid': 'dev-pick', onclick: () => void this.pickFolder() },
      t('dev.form.pick'),
    );
    // In a browser there is no native dialog: the path field is the way (PickFolder says "unsupported").
    this.pick.hidden = !isDesktop();
    const radio = (value: LinkInto) =>
      h('input', { type: 'radio', name: 'dev-into', value, 'data-testid': `dev-into-${value}` });
    this.into = { home: radio('home'), cursor: radio('cursor') };
    this.into.home.checked = true;
    this.name = h('input', {
      type: 'text',
      id: 'dev-name',
      class: 'grow mono',
      placeholder: t('dev.form.namePlaceholder'),
      'aria-label': t('dev.form.nameLabel'),
      'data-testid': 'dev-name',
      spellcheck: 'false',
      autocomplete: 'off',
    });
    this.copy = h('input', { type: 'checkbox', 'data-testid': 'dev-copy' });
    this.force = h('input', { type: 'checkbox', 'data-testid': 'dev-force' });
    this.linkBtn = h(
      'button',
      { type: 'button', class: 'btn btn-primary', 'data-testid': 'dev-link', onclick: () => void this.link() },
      t('dev.form.link'),
    );
    this.status = h('div', { 'data-testid': 'dev-status', role: 'status', 'aria-live': 'polite' });
    this.list = h('ul', { class: 'plain dev-links', 'data-testid': 'dev-links', 'aria-labelledby': 'h-dev-links' });
    this.count = h('span', { class: 'muted' });

    this.el = h(
      'div',
      { class: 'settings-page dev-page' },
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'h-dev-link' },
        h('h3', { id: 'h-dev-link' }, t('dev.form.title')),
        h('p', { class: 'muted small' }, t('dev.form.lead')),
        h('label', { for: 'dev-path', class: 'field-label' }, t('dev.form.folder')),
        h('div', { class: 'row' }, this.path, this.pick),
        h(
          'fieldset',
          { class: 'radio-group' },
          h('legend', { class: 'field-label' }, t('dev.form.into')),
          h(
            'label',
            { class: 'check' },
            this.into.home,
            h('span', null, t('dev.form.intoHome')),
            h('code', { class: 'muted' }, '$PLUGBOARD_HOME/plugins/'),
          ),
          h(
            'label',
            { class: 'check' },
            this.into.cursor,
            h('span', null, t('dev.form.intoCursor')),
            h('code', { class: 'muted' }, '~/.cursor/plugins/local/'),
          ),
        ),
        h('label', { for: 'dev-name', class: 'field-label' }, t('dev.form.name')),
        this.name,
        h(
          'label',
          { class: 'check' },
          this.copy,
          h('span', null, t('dev.form.copy')),
          h('span', { class: 'muted small' }, t('dev.form.copyNote')),
        ),
        h(
          'label',
          { class: 'check' },
          this.force,
          h('span', null, t('dev.form.force')),
          h('span', { class: 'muted small' }, t('dev.form.forceNote')),
        ),
        h('div', { class: 'row' }, this.linkBtn),
        this.status,
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'h-dev-links' },
        h('h3', { id: 'h-dev-links' }, t('dev.list.title'), this.count),
        this.list,
      ),
      h(
        'div',
        { class: 'try-dev' },
        h('label', { for: 'try-dev-link', class: 'field-label' }, t('dev.try.label')),
        this.tryLink,
        this.tryPanel.el,
      ),
    );
    this.renderTry();
  }

  /** The links in the Try box's list (the chosen one kept), and the box over the chosen one. */
  private renderTry(): void {
    const chosen = this.tryLink.value;
    mount(
      this.tryLink,
      ...this.links.map((l) => h('option', { value: l.dest, selected: l.dest === chosen }, `${l.name} (${l.into})`)),
    );
    this.tryLink.disabled = this.links.length === 0;
    const dest = this.tryLink.value;
    this.tryPanel.set(dest ? { dir: dest } : null);
  }

  setIndex(ix: CatalogIndex): void {
    this.ix = ix;
    if (!this.path.placeholder.startsWith(ix.doc.home)) this.path.placeholder = `${ix.doc.home}/src/my-plugin`;
    this.render();
    void this.load();
  }

  /** The tab was opened: read the links again. */
  activate(): void {
    void this.load();
  }

  /** A live reload: validation may have changed. */
  reloaded(): void {
    void this.load();
  }

  /** Calls Links; overlapping calls collapse into one more. */
  private readonly load = coalesced(async () => {
    try {
      this.links = (await api.links()) ?? [];
      this.loadError = '';
    } catch (e) {
      this.loadError = errorText(e);
    } finally {
      this.loaded = true;
      this.renderList();
    }
  });

  private async pickFolder(): Promise<void> {
    try {
      const dir = await api.pickFolder();
      if (dir) this.path.value = dir;
      this.path.focus();
    } catch (e) {
      if (e instanceof ApiError && e.code === 'unsupported') {
        this.pick.hidden = true;
        this.notice = { kind: 'error', text: t('dev.pick.unsupported') };
        this.path.focus();
      } else {
        this.notice = { kind: 'error', text: t('dev.pick.failed', { msg: errorText(e) }) };
      }
      this.render();
    }
  }

  /**
   * Shows a folder the app was asked to open (`plugboard FOLDER`, or a second start of the window)
   * in the link form, to check and link: nothing is linked until the user says so.
   */
  offer(dir: string): void {
    this.path.value = dir;
    this.notice = { kind: 'ok', text: t('dev.offer', { dir }) };
    this.render();
    this.path.focus();
  }

  /** The typed folder as an absolute path (~ is the home folder), or "" with a notice. */
  private folder(): string {
    let p = this.path.value.trim();
    const home = this.ix?.doc.home ?? '';
    if (home && (p === '~' || p.startsWith('~/'))) p = home + p.slice(1);
    if (!p.startsWith('/')) {
      this.notice = {
        kind: 'error',
        text: p ? t('dev.folder.notAbsolute', { path: p }) : t('dev.folder.empty'),
      };
      return '';
    }
    return p;
  }

  private async link(): Promise<void> {
    if (this.busy) return;
    const dir = this.folder();
    if (!dir) {
      this.render();
      this.path.focus();
      return;
    }
    const into: LinkInto = this.into.cursor.checked ? 'cursor' : 'home';
    this.busy = true;
    this.notice = null;
    this.render();
    try {
      const r = await api.link(dir, into, this.name.value.trim(), this.copy.checked, this.force.checked);
      const copy = r.mode === 'copy';
      const params = { name: r.name, into: intoLabel(r.into) };
      this.notice = {
        kind: 'ok',
        text: r.alreadyLinked
          ? t(copy ? 'dev.link.alreadyCopy' : 'dev.link.already', params)
          : r.valid
            ? t(copy ? 'dev.link.copy' : 'dev.link.symlink', params)
            : t(copy ? 'dev.link.copyForced' : 'dev.link.symlinkForced', params),
      };
      this.name.value = '';
      this.force.checked = false;
    } catch (e) {
      const msg = errorText(e);
      const nl = msg.indexOf('\n');
      this.notice =
        e instanceof ApiError && e.code === 'refused'
          ? {
              kind: 'error',
              text: t('dev.link.refused', { msg: nl < 0 ? msg : msg.slice(0, nl) }),
              detail:
                nl < 0
                  ? ''
                  : msg
                      .slice(nl + 1)
                      .split('\n')
                      .map((l) => l.trim())
                      .join('\n'),
            }
          : { kind: 'error', text: t('dev.link.refused', { msg }) };
    } finally {
      this.busy = false;
      this.render();
      void this.load();
    }
  }

  private async unlink(l: LinkResult): Promise<void> {
    const key = `${l.into}/${l.name}`;
    if (this.unlinking.has(key)) return;
    this.unlinking.add(key);
    this.renderList();
    try {
      await api.unlink(l.name, l.into);
      this.listNotice = {
        kind: 'ok',
        text: t('dev.unlink.done', {
          name: l.name,
          into: intoLabel(l.into),
          source: tilde(l.source, this.ix?.doc.home),
        }),
      };
    } catch (e) {
      this.listNotice = { kind: 'error', text: t('dev.unlink.failed', { name: l.name, msg: errorText(e) }) };
    } finally {
      this.unlinking.delete(key);
      await this.load();
    }
  }

  /** The catalog's plugin at the link's destination. */
  private plugin(l: LinkResult): Plugin | undefined {
    const plugins = this.ix?.doc.plugins ?? [];
    // ids as the catalog gives them: a managed folder's name, name@cursor-local for Cursor's local folder
    const id = l.into === 'cursor' ? `${l.name}@cursor-local` : l.name;
    return plugins.find((p) => p.path === l.dest) ?? plugins.find((p) => p.id === id);
  }

  private render(): void {
    this.linkBtn.disabled = this.busy;
    this.linkBtn.textContent = this.busy ? t('dev.form.linking') : t('dev.form.link');
    const n = this.notice;
    mount(
      this.status,
      n ? h('p', { class: `notice notice-${n.kind}`, 'data-kind': n.kind }, n.text) : null,
      n?.detail ? h('pre', { class: 'refusal mono small', 'data-testid': 'dev-refusal' }, n.detail) : null,
    );
    this.renderList();
  }

  private renderList(): void {
    const home = this.ix?.doc.home;
    this.count.textContent = this.loaded ? t('dev.list.count', { n: this.links.length }) : '';
    const items: Node[] = [];
    if (this.listNotice)
      items.push(
        h(
          'li',
          { class: `notice notice-${this.listNotice.kind}`, 'data-testid': 'dev-links-status', role: 'status' },
          this.listNotice.text,
        ),
      );
    if (this.loadError)
      items.push(h('li', { class: 'notice notice-error' }, t('dev.list.loadError', { msg: this.loadError })));
    if (!this.loaded) items.push(h('li', { class: 'muted' }, t('dev.list.loading')));
    else if (!this.links.length)
      items.push(h('li', { class: 'muted', 'data-testid': 'dev-links-none' }, t('dev.list.none')));
    for (const l of this.links) {
      const key = `${l.into}/${l.name}`;
      items.push(
        linkItem(l, this.plugin(l), {
          home,
          unlinking: this.unlinking.has(key),
          unlink: () => void this.unlink(l),
          show: (id) => this.ctx.showPlugin(id),
        }),
      );
    }
    mount(this.list, ...items);
    this.renderTry();
  }
}
