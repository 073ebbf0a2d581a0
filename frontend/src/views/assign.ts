// Assignments (A5, U3): which catalog plugins (managed, Cursor, skillPluginPaths) an agent or a template slot loads. The left pane lists
// the targets (Targets); the right pane is the selected target's checklist, edited as a local draft
// and saved with Assign(target, {set}, hash, ack). The backend decides: ack-needed opens the MCP
// acknowledgment dialog, refused shows its rule and names, stale keeps the draft and blocks Save
// until Reset. History lists the target's saves with a Revert each, and its acknowledgments with their
// digests. The Launch card (views/launch.ts) opens the target's agent in a terminal; it asks through
// the same acknowledgment dialog for MCP servers that are not acknowledged for the target as they are
// now (a plugin that gained or changed a server after it was assigned).

import { api, ApiError, errorText } from '../bridge';
import { claudeOnly, claudeOnlySentence, launchesAsClaude } from '../clients';
import { badge, h, keepFocus, mount } from '../dom';
import { fmtDateTime, type Key, t as tr } from '../i18n';
import { confirmDiscard, openDialog, openModal } from '../modal';
import { isRemote, issueLine, mcpSummary, typeBadge } from '../render';
import type { CatalogIndex } from '../search';
import type { AckServer, AssignResult, HistoryEntry, Issue, Plugin, Target, TargetKind } from '../types';
import type { FilesResult } from '../models.gen';
import type { Ctx } from './ctx';
import { type AckMode, LaunchPanel, shortDigest } from './launch';
import { BudgetPanel } from './budget';
import { TryPanel } from './try';

/** Where a plugin that is not in $PLUGBOARD_HOME/plugins comes from, as the checklist names it. */
const SOURCE_LABEL: Record<Plugin['source'], () => string> = {
  plugboard: () => tr('assign.source.plugboard'),
  'cursor-local': () => tr('assign.source.cursorLocal'),
  'cursor-cache': () => tr('assign.source.cursorCache'),
  'plugin-path': () => 'skillPluginPaths', // the setting's name, the same in every language
  inspect: () => tr('assign.source.inspect'),
};

const KIND_LABEL: Record<TargetKind, Key> = {
  agent: 'assign.kind.agent',
  'template-slot': 'assign.kind.templateSlot',
  'shell-binding': 'assign.kind.shellBinding',
  active: 'assign.kind.active',
};

/** A target's kind in words; a kind this page does not know (Target.kind is any string) as Go names it. */
function kindLabel(kind: string): string {
  const key: Key | undefined = (KIND_LABEL as Partial<Record<string, Key>>)[kind];
  return key ? tr(key) : kind;
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function targetLabel(t: Target): string {
  if (t.kind === 'agent') return t.name;
  const slot = t.id.includes('/') ? t.id.slice(t.id.indexOf('/') + 1) : (t.ref ?? '');
  if (t.kind === 'shell-binding') return `${t.name} → ${t.ref ?? ''}`;
  return `${t.name} / ${slot}`;
}

function readOnlyReason(t: Target): string {
  if (t.kind === 'shell-binding') return tr('assign.readOnly.shellBinding');
  if (t.kind === 'active') return tr('assign.readOnly.active');
  return tr('assign.readOnly.other');
}

/**
 * What a history entry changed: the entries it added (+) and removed (−), or, when it only moved
 * between the agent's defaults and a list of its own, both sides; an agent or template operation's
 * files.
 */
function historyChange(e: HistoryEntry, fmt: (dirs: string[], unset?: boolean) => string): HTMLElement {
  const box = h('div', { class: 'mono small history-change', 'data-testid': 'history-change' });
  if (e.kind === 'files') {
    for (const f of e.files ?? []) {
      const key =
        f.before == null
          ? 'assign.history.files.created'
          : f.after == null
            ? 'assign.history.files.removed'
            : 'assign.history.files.changed';
      box.append(h('div', { 'data-testid': 'history-file' }, tr(key, { path: f.path })));
    }
    return box;
  }
  for (const d of e.added ?? []) box.append(h('div', { class: 'diff-add', 'data-testid': 'history-plus' }, `+ ${d}`));
  for (const d of e.removed ?? [])
    box.append(h('div', { class: 'diff-del', 'data-testid': 'history-minus' }, `− ${d}`));
  if (e.beforeUnset !== e.afterUnset || !box.childElementCount)
    box.append(h('div', { class: 'muted' }, `${fmt(e.before, e.beforeUnset)} → ${fmt(e.after, e.afterUnset)}`));
  return box;
}

/** The issues of an assignment file as a whole (the file, not one target's entries): shown above the list. */
const FILE_CODES = new Set([
  'assign.file-unreadable',
  'assign.file-invalid',
  'assign.name-missing',
  'assign.duplicate-target',
]);

export class AssignView {
  readonly el: HTMLElement;
  readonly ctx: Ctx;
  private readonly list: HTMLElement;
  private readonly detail: HTMLElement;
  private ix: CatalogIndex | null = null;
  private targets: Target[] = [];
  private issues: Issue[] = [];
  private loaded = false;
  private loadError = '';
  private selected = '';
  /** The target as the draft started from it. */
  private base: Target | null = null;
  private draft: string[] = [];
  /** A defaults slot being turned into a custom one (Customise). */
  private customising = false;
  /** The target changed on disk while the draft was dirty: the fresh target, Save blocked until Reset. */
  private fresh: Target | null = null;
  private busy = false;
  private notice: { kind: 'ok' | 'error' | 'stale'; text: string; names?: string[] } | null = null;
  /** What the last agent or template operation did (or why it did not), with its Undo. */
  private opNotice: { kind: 'ok' | 'error'; text: string; undo?: number; warnings: string[] } | null = null;
  private history: HistoryEntry[] = [];
  private historyError = '';
  private readonly launch = new LaunchPanel(
    (servers, mode) => this.ackDialog(servers, mode),
    () => void this.loadHistory(),
  );
  private readonly tryPanel = new TryPanel('try-target');
  private readonly budgetPanel = new BudgetPanel('budget-target');

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    this.list = h('nav', { class: 'target-list', 'aria-label': tr('assign.list.label'), 'data-testid': 'target-list' });
    this.detail = h('div', { class: 'pane pane-detail', 'data-testid': 'assign-detail', tabindex: '-1' });
    this.el = h(
      'div',
      { class: 'split assign-page' },
      h('div', { class: 'pane pane-list target-pane' }, this.list),
      this.detail,
    );
    window.addEventListener('beforeunload', (e) => {
      if (this.dirty) {
        e.preventDefault();
        e.returnValue = '';
      }
    });
  }

  /** The draft differs from the target (or a Customise is pending). */
  get dirty(): boolean {
    if (!this.base) return false;
    return this.customising || !sameList(this.draft, this.base.managed);
  }

  setIndex(ix: CatalogIndex): void {
    this.ix = ix;
    if (!this.loaded) void this.refresh();
    else this.render();
  }

  /** Asks before a dirty draft is left; resolves true when it may be left (and discards it). */
  async leave(): Promise<boolean> {
    if (!this.dirty) return true;
    const question = this.base
      ? tr('assign.leave.unsavedOf', { target: targetLabel(this.base) })
      : tr('assign.leave.unsaved');
    if (!(await confirmDiscard(question))) return false;
    this.reset();
    return true;
  }

  /** Calls Targets again (after catalog:updated, or a save); a changed target under a dirty draft goes stale. */
  async refresh(): Promise<void> {
    try {
      const doc = await api.targets();
      this.targets = doc.targets ?? [];
      this.issues = doc.issues ?? [];
      this.loadError = '';
    } catch (e) {
      this.loadError = errorText(e);
    }
    this.loaded = true;
    if (!this.selected && this.targets.length) this.selected = this.targets[0].id;
    const now = this.targets.find((t) => t.id === this.selected) ?? null;
    if (!now) {
      this.base = null;
    } else if (!this.base || this.base.id !== now.id) {
      this.load(now);
    } else if (now.hash !== this.base.hash) {
      if (this.dirty) {
        this.fresh = now;
        this.notice = { kind: 'stale', text: tr('assign.notice.staleChanged') };
      } else {
        this.load(now);
      }
    }
    this.render();
    void this.loadHistory();
  }

  private load(t: Target): void {
    this.base = t;
    this.draft = [...t.managed];
    this.customising = false;
    this.fresh = null;
  }

  /** Discards the draft and loads the target as it is now. */
  reset(): void {
    const t = this.fresh ?? this.targets.find((x) => x.id === this.selected) ?? this.base;
    if (t) this.load(t);
    this.notice = null;
    this.render();
  }

  private async select(id: string): Promise<void> {
    if (id === this.selected) return;
    if (!(await this.leave())) return;
    this.selected = id;
    const t = this.targets.find((x) => x.id === id);
    if (t) this.load(t);
    this.notice = null;
    this.opNotice = null;
    this.history = [];
    this.render();
    void this.loadHistory();
  }

  private async loadHistory(): Promise<void> {
    const id = this.selected;
    if (!id) return;
    try {
      const entries = await api.history(id);
      if (id !== this.selected) return;
      this.history = entries ?? [];
      this.historyError = '';
    } catch (e) {
      this.historyError = errorText(e);
    }
    this.renderHistory();
  }

  private toggle(id: string, on: boolean): void {
    if (on && !this.draft.includes(id)) this.draft = [...this.draft, id];
    if (!on) this.draft = this.draft.filter((x) => x !== id);
    if (this.notice?.kind !== 'stale') this.notice = null;
    this.render();
  }

  // ---- saving ----------------------------------------------------------------------------------
  private async save(): Promise<void> {
    const t = this.base;
    if (!t || this.busy || this.fresh || !this.dirty) return;
    await this.guarded(
      (ack) => api.assign(t.id, { set: [...this.draft] }, t.hash, ack),
      (history) => tr('assign.notice.saved', { history }),
    );
  }

  private async useDefaults(): Promise<void> {
    const t = this.base;
    if (!t || this.busy) return;
    await this.guarded(
      (ack) => api.assign(t.id, { defaults: true }, t.hash, ack),
      (history) => tr('assign.notice.usesDefaults', { history }),
    );
  }

  private async revert(entry: HistoryEntry): Promise<void> {
    if (this.busy || this.dirty) return;
    if ((await this.confirmRevert(entry)) !== 'revert') return;
    await this.guarded(
      (ack) => api.revert(entry.id, ack),
      (history) => tr('assign.notice.reverted', { id: String(entry.id), history }),
      entry,
    );
  }

  /** Runs a save; ack-needed → the dialog, then again with ack; stale / refused → the notice. */
  private async guarded(
    run: (ack: boolean) => Promise<AssignResult>,
    done: (history: string) => string,
    revertOf?: HistoryEntry,
  ): Promise<void> {
    this.busy = true;
    this.render();
    try {
      let res: AssignResult;
      try {
        res = await run(false);
      } catch (e) {
        if (!(e instanceof ApiError) || e.code !== 'ack-needed') throw e;
        this.busy = false;
        this.render();
        if ((await this.ackDialog(e.body.servers ?? [], 'save')) !== 'ack') {
          this.notice = { kind: 'error', text: tr('assign.notice.notAcknowledged') };
          return;
        }
        this.busy = true;
        this.render();
        res = await run(true);
      }
      const t = res.files?.length ? null : res.outcome?.target; // a file revert names only its target
      this.notice = { kind: 'ok', text: done(String(res.history)) };
      if (t) {
        this.targets = this.targets.map((x) => (x.id === t.id ? t : x));
        this.load(t);
      }
      void this.refresh();
    } catch (e) {
      this.fail(e, revertOf);
    } finally {
      this.busy = false;
      this.render();
    }
  }

  private fail(e: unknown, revertOf?: HistoryEntry): void {
    if (!(e instanceof ApiError)) {
      this.notice = { kind: 'error', text: tr('assign.notice.notSaved', { msg: errorText(e) }) };
      return;
    }
    if (e.code === 'stale') {
      if (revertOf) {
        this.notice = {
          kind: 'error',
          text: tr('assign.notice.notReverted', { id: String(revertOf.id) }),
        };
        void this.refresh();
        return;
      }
      const cur = e.body.current as Target | undefined;
      this.fresh = cur && cur.id === this.selected ? cur : (this.fresh ?? this.base);
      this.notice = { kind: 'stale', text: tr('assign.notice.staleNotSaved') };
      return;
    }
    if (e.code === 'refused') {
      this.notice = { kind: 'error', text: tr('assign.notice.refused', { msg: e.message }), names: e.body.names ?? [] };
      return;
    }
    this.notice = { kind: 'error', text: tr('assign.notice.notSaved', { msg: e.message }) };
  }

  /**
   * The MCP acknowledgment dialog. For a save: Acknowledge and save / Cancel. For a launch: Acknowledge
   * and launch / Launch without them / Cancel. After a launch: Acknowledge / Cancel. Resolves with
   * `ack`, `without` or `cancel`.
   */
  private ackDialog(servers: AckServer[], mode: AckMode): Promise<string> {
    const rows = servers.map((s) =>
      h(
        'li',
        { class: 'ack-server', 'data-testid': 'ack-server', 'data-plugin': s.plugin, 'data-server': s.server },
        h(
          'div',
          { class: 'server-head' },
          h('strong', { class: 'mono' }, `${s.plugin} / ${s.server}`),
          typeBadge(s.type),
          badge(isRemote(s.type, s.summary) ? tr('assign.ack.remote') : tr('assign.ack.local'), 'info'),
        ),
        mcpSummary(s.type, s.summary ?? {}),
        s.digest
          ? h(
              'div',
              { class: 'muted small mono', 'data-testid': 'ack-digest' },
              tr('assign.ack.digest', { digest: shortDigest(s.digest) }),
            )
          : null,
      ),
    );
    const confirm = tr(
      (
        {
          save: 'assign.ack.confirmSave',
          launch: 'assign.ack.confirmLaunch',
          later: 'assign.ack.confirmLater',
        } as const
      )[mode],
    );
    return openModal({
      title: tr('assign.ack.title', { n: servers.length }),
      testid: 'ack-dialog',
      body: [
        h('p', { class: 'ack-statement', 'data-testid': 'ack-statement' }, tr('assign.ack.statement')),
        h('ul', { class: 'ack-servers' }, ...rows),
      ],
      actions: [
        { label: tr('assign.ack.cancel'), value: 'cancel', testid: 'ack-cancel' },
        ...(mode === 'launch' ? [{ label: tr('assign.ack.without'), value: 'without', testid: 'ack-without' }] : []),
        { label: confirm, value: 'ack', primary: true, testid: 'ack-confirm' },
      ],
      cancel: 'cancel',
    });
  }

  /** Asks before a revert, showing what it adds back (+), takes out (−) or puts back (files). */
  private confirmRevert(e: HistoryEntry): Promise<string> {
    const lines: Node[] = [];
    if (e.kind === 'files')
      for (const f of e.files ?? [])
        lines.push(
          h(
            'li',
            { class: 'mono small', 'data-testid': 'revert-file' },
            tr(
              f.after == null
                ? 'assign.revert.fileBack'
                : f.before == null
                  ? 'assign.revert.fileGone'
                  : 'assign.revert.fileRestored',
              {
                path: f.path,
              },
            ),
          ),
        );
    else {
      for (const d of e.added ?? [])
        lines.push(h('li', { class: 'mono small diff-del', 'data-testid': 'revert-minus' }, `− ${d}`));
      for (const d of e.removed ?? [])
        lines.push(h('li', { class: 'mono small diff-add', 'data-testid': 'revert-plus' }, `+ ${d}`));
    }
    return openModal({
      title: tr('assign.revert.title', { id: String(e.id) }),
      testid: 'revert-dialog',
      body: [
        h('p', null, tr('assign.revert.what', { target: e.target })),
        lines.length ? h('ul', { class: 'plain' }, ...lines) : h('p', { class: 'muted' }, tr('assign.revert.nothing')),
      ],
      actions: [
        { label: tr('common.cancel'), value: 'cancel', testid: 'revert-cancel' },
        { label: tr('assign.history.revert'), value: 'revert', primary: true, testid: 'revert-confirm' },
      ],
      cancel: 'cancel',
    });
  }

  /**
   * Runs an agent or template operation; on success shows the targets it returned, selects select's
   * target and says done with an Undo. Resolves with the error's sentence ('' on success) for the dialog.
   */
  private async files(
    run: () => Promise<FilesResult>,
    select: (r: FilesResult) => string,
    done: string,
  ): Promise<string> {
    this.busy = true;
    this.render();
    try {
      const res = await run();
      this.targets = res.targets.targets ?? [];
      this.issues = res.targets.issues ?? [];
      const id = select(res);
      const t = this.targets.find((x) => x.id === id) ?? this.targets[0] ?? null;
      this.selected = t?.id ?? '';
      if (t) this.load(t);
      else this.base = null;
      this.notice = null;
      this.opNotice = {
        kind: 'ok',
        text: done,
        undo: res.saved.history || undefined,
        warnings: res.saved.warnings ?? [],
      };
      this.history = [];
      void this.loadHistory();
      return '';
    } catch (e) {
      return errorText(e);
    } finally {
      this.busy = false;
      this.render();
    }
  }

  /** Opens the New agent dialog from elsewhere (the welcome view). */
  openNewAgent(): void {
    this.newAgentDialog();
  }

  /** The New agent dialog: a name, the backend it launches, and optionally another agent's set to start from. */
  private newAgentDialog(from = ''): void {
    const name = h('input', {
      type: 'text',
      'data-testid': 'agent-name',
      required: true,
      maxlength: 64,
      autocomplete: 'off',
    });
    const backend = h(
      'select',
      { 'data-testid': 'agent-backend' },
      h('option', { value: '' }, tr('assign.agent.backendClaude')),
      h('option', { value: 'pi' }, tr('assign.agent.backendPI')),
      h('option', { value: 'codex' }, tr('assign.agent.backendCodex')),
      h('option', { value: 'copilot' }, tr('assign.agent.backendCopilot')),
    );
    const agents = this.targets.filter((t) => t.kind === 'agent');
    const start = h(
      'select',
      { 'data-testid': 'agent-from' },
      h('option', { value: '' }, tr('assign.agent.fromNone')),
      ...agents.map((a) => h('option', { value: a.name, selected: a.name === from }, a.name)),
    );
    const error = h('p', { class: 'notice notice-error', 'data-testid': 'agent-error', hidden: true });
    const submit = async (ev: Event) => {
      ev.preventDefault();
      const failed = await this.files(
        () => api.newAgent(name.value.trim(), backend.value, start.value),
        (r) => r.saved.target,
        tr('assign.agent.made', { name: name.value.trim() }),
      );
      if (!failed) dlg.close();
      error.hidden = !failed;
      error.textContent = failed;
    };
    const dlg = openDialog({
      title: tr('assign.agent.newTitle'),
      testid: 'agent-dialog',
      closeLabel: tr('common.cancel'),
      body: [
        h(
          'form',
          { class: 'form', onsubmit: (e: Event) => void submit(e) },
          h('p', { class: 'muted small' }, tr('assign.agent.what')),
          h('label', null, tr('assign.agent.name'), name),
          h('label', null, tr('assign.agent.backend'), backend),
          agents.length ? h('label', null, tr('assign.agent.from'), start) : null,
          error,
          h(
            'button',
            { type: 'submit', class: 'btn btn-primary', 'data-testid': 'agent-create' },
            tr('assign.agent.create'),
          ),
        ),
      ],
    });
  }

  /** A dialog asking one name (rename, copy, add to a template), then run. */
  private nameDialog(o: {
    title: string;
    label: string;
    value: string;
    testid: string;
    run: (v: string) => Promise<string>;
    list?: string[];
  }): void {
    const input = h('input', {
      type: 'text',
      value: o.value,
      'data-testid': `${o.testid}-name`,
      required: true,
      autocomplete: 'off',
      list: o.list ? `${o.testid}-list` : undefined,
    });
    const error = h('p', { class: 'notice notice-error', 'data-testid': `${o.testid}-error`, hidden: true });
    const dlg = openDialog({
      title: o.title,
      testid: o.testid,
      closeLabel: tr('common.cancel'),
      body: [
        h(
          'form',
          {
            class: 'form',
            onsubmit: async (e: Event) => {
              e.preventDefault();
              const failed = await o.run(input.value.trim());
              if (!failed) dlg.close();
              error.hidden = !failed;
              error.textContent = failed;
            },
          },
          h('label', null, o.label, input),
          o.list ? h('datalist', { id: `${o.testid}-list` }, ...o.list.map((v) => h('option', { value: v }))) : null,
          error,
          h('button', { type: 'submit', class: 'btn btn-primary', 'data-testid': `${o.testid}-ok` }, tr('common.ok')),
        ),
      ],
    });
    input.select();
  }

  /** The agent's own actions (rename, duplicate, add to a template, delete) or a slot's (remove). */
  private targetActions(t: Target): HTMLElement | null {
    const btn = (testid: string, label: string, onclick: () => void, danger = false) =>
      h(
        'button',
        {
          type: 'button',
          class: danger ? 'btn btn-small btn-danger' : 'btn btn-small',
          'data-testid': testid,
          disabled: this.busy || this.dirty,
          onclick,
        },
        label,
      );
    if (t.kind === 'agent') {
      const templates = [
        ...new Set(this.targets.filter((x) => x.kind === 'template-slot' || x.kind === 'active').map((x) => x.name)),
      ];
      return h(
        'div',
        { class: 'row target-actions', 'data-testid': 'agent-actions' },
        btn('agent-rename', tr('assign.agent.rename'), () =>
          this.nameDialog({
            title: tr('assign.agent.renameTitle', { name: t.name }),
            label: tr('assign.agent.name'),
            value: t.name,
            testid: 'rename-dialog',
            run: (v) =>
              this.files(
                () => api.renameAgent(t.name, v),
                (r) => r.saved.target,
                tr('assign.agent.renamed', { name: t.name, to: v }),
              ),
          }),
        ),
        btn('agent-copy', tr('assign.agent.copy'), () =>
          this.nameDialog({
            title: tr('assign.agent.copyTitle', { name: t.name }),
            label: tr('assign.agent.name'),
            value: `${t.name}-copy`,
            testid: 'copy-dialog',
            run: (v) =>
              this.files(
                () => api.copyAgent(t.name, v),
                (r) => r.saved.target,
                tr('assign.agent.copied', { name: t.name, to: v }),
              ),
          }),
        ),
        btn('agent-add-slot', tr('assign.agent.addSlot'), () =>
          this.nameDialog({
            title: tr('assign.agent.addSlotTitle', { name: t.name }),
            label: tr('assign.agent.template'),
            value: templates[0] ?? '',
            testid: 'slot-dialog',
            list: templates,
            run: (v) =>
              this.files(
                () => api.addSlot(v, t.name),
                (r) => r.saved.target,
                tr('assign.agent.slotAdded', { name: t.name, template: v }),
              ),
          }),
        ),
        btn('agent-delete', tr('assign.agent.delete'), () => void this.removeAgent(t), true),
      );
    }
    if (t.kind === 'template-slot' || t.kind === 'active')
      return h(
        'div',
        { class: 'row target-actions' },
        btn('slot-remove', tr('assign.slot.remove'), () => void this.removeSlot(t), true),
      );
    return null;
  }

  private async removeAgent(t: Target): Promise<void> {
    const v = await openModal({
      title: tr('assign.agent.deleteTitle', { name: t.name }),
      testid: 'delete-dialog',
      body: [h('p', null, tr('assign.agent.deleteWhat', { file: t.file }))],
      actions: [
        { label: tr('common.cancel'), value: 'cancel', testid: 'delete-cancel' },
        { label: tr('assign.agent.delete'), value: 'delete', primary: true, testid: 'delete-confirm' },
      ],
      cancel: 'cancel',
    });
    if (v !== 'delete') return;
    const failed = await this.files(
      () => api.removeAgent(t.name),
      () => '',
      tr('assign.agent.deleted', { name: t.name }),
    );
    if (failed) this.showOpError(failed);
  }

  private async removeSlot(t: Target): Promise<void> {
    const v = await openModal({
      title: tr('assign.slot.removeTitle', { slot: targetLabel(t) }),
      testid: 'delete-dialog',
      body: [h('p', null, tr('assign.slot.removeWhat', { file: t.file }))],
      actions: [
        { label: tr('common.cancel'), value: 'cancel', testid: 'delete-cancel' },
        { label: tr('assign.slot.remove'), value: 'delete', primary: true, testid: 'delete-confirm' },
      ],
      cancel: 'cancel',
    });
    if (v !== 'delete') return;
    const failed = await this.files(
      () => api.removeSlot(t.id),
      () => '',
      tr('assign.slot.removed', { slot: targetLabel(t) }),
    );
    if (failed) this.showOpError(failed);
  }

  private showOpError(text: string): void {
    this.opNotice = { kind: 'error', text, warnings: [] };
    this.render();
  }

  /** Undoes the last agent or template operation from its notice. */
  private async undo(history: number): Promise<void> {
    this.busy = true;
    this.render();
    try {
      await api.revert(history, false);
      this.opNotice = { kind: 'ok', text: tr('assign.notice.undone'), warnings: [] };
      this.selected = '';
      this.base = null;
      await this.refresh();
    } catch (e) {
      this.opNotice = { kind: 'error', text: errorText(e), warnings: [] };
    } finally {
      this.busy = false;
      this.render();
    }
  }

  /** What the last agent or template operation did, with its Undo; shown above the detail. */
  private renderOpNotice(): HTMLElement | null {
    const n = this.opNotice;
    if (!n) return null;
    return h(
      'div',
      {
        class: `notice notice-${n.kind === 'ok' ? 'ok' : 'error'} row op-notice`,
        'data-testid': 'op-notice',
        role: 'status',
      },
      h('span', { class: 'grow' }, n.text, ...n.warnings.map((w) => h('span', { class: 'small block' }, w))),
      n.undo
        ? h(
            'button',
            {
              type: 'button',
              class: 'btn btn-small',
              'data-testid': 'op-undo',
              disabled: this.busy,
              onclick: () => void this.undo(n.undo ?? 0),
            },
            tr('assign.notice.undo'),
          )
        : null,
      h(
        'button',
        {
          type: 'button',
          class: 'btn btn-small',
          'aria-label': tr('common.close'),
          onclick: () => {
            this.opNotice = null;
            this.render();
          },
        },
        '×',
      ),
    );
  }

  // ---- rendering -------------------------------------------------------------------------------
  /** What the backend was last told about the draft, so the window can ask before closing. */
  private reportedDirty = false;

  /** Tells the backend whether a draft is unsaved: the desktop window asks before closing then. */
  private reportDirty(): void {
    const dirty = this.dirty;
    if (dirty === this.reportedDirty) return;
    this.reportedDirty = dirty;
    api.setDraftDirty(dirty).catch(() => {});
  }

  private render(): void {
    this.reportDirty();
    keepFocus(this.el, () => {
      this.renderList();
      this.renderDetail();
    });
  }

  private renderList(): void {
    const groups: Array<{ title: string; readOnly: boolean; items: Target[] }> = [
      { title: tr('assign.list.agents'), readOnly: false, items: this.targets.filter((t) => t.kind === 'agent') },
      {
        title: tr('assign.list.templateSlots'),
        readOnly: false,
        items: this.targets.filter((t) => t.kind === 'template-slot'),
      },
      {
        title: tr('assign.list.readOnly'),
        readOnly: true,
        items: this.targets.filter((t) => t.readOnly || t.kind === 'shell-binding' || t.kind === 'active'),
      },
    ];
    const nodes: Node[] = [];
    for (const g of groups) {
      if (!g.readOnly) g.items = g.items.filter((t) => !t.readOnly);
      if (!g.items.length) continue;
      nodes.push(h('h3', { class: 'target-group' }, g.title));
      nodes.push(
        h(
          'ul',
          { class: 'plain' },
          ...g.items.map((t) => {
            const sel = t.id === this.selected;
            const mode =
              t.kind === 'template-slot'
                ? badge(
                    t.inherits ? tr('assign.badge.agentDefaults') : tr('assign.badge.custom'),
                    t.inherits ? 'fmt-none' : 'info',
                  )
                : null;
            return h(
              'li',
              null,
              h(
                'button',
                {
                  type: 'button',
                  class: `target${sel ? ' selected' : ''}`,
                  'data-testid': 'target',
                  'data-id': t.id,
                  'aria-current': sel ? 'true' : undefined,
                  onclick: () => void this.select(t.id),
                },
                h('span', { class: 'target-name' }, targetLabel(t)),
                h(
                  'span',
                  { class: 'target-side' },
                  mode,
                  t.readOnly ? badge(tr('assign.badge.readOnly'), 'fmt-none') : null,
                  h('span', { class: 'muted small' }, String(t.effective.length)),
                ),
              ),
            );
          }),
        ),
      );
    }
    const fileIssues = this.issues.filter((i) => FILE_CODES.has(i.code));
    if (fileIssues.length)
      nodes.unshift(
        h(
          'section',
          { class: 'notice notice-error', 'data-testid': 'target-file-issues' },
          h('p', null, tr('assign.list.fileIssues', { n: fileIssues.length })),
          h('ul', { class: 'plain' }, ...fileIssues.map((i) => issueLine(i))),
        ),
      );
    if (this.loadError)
      nodes.unshift(h('p', { class: 'notice notice-error' }, tr('assign.list.loadError', { msg: this.loadError })));
    const newAgent = (testid: string, primary: boolean) =>
      h(
        'button',
        {
          type: 'button',
          class: primary ? 'btn btn-primary' : 'btn',
          'data-testid': testid,
          disabled: this.busy,
          onclick: () => this.newAgentDialog(),
        },
        tr('assign.agent.new'),
      );
    if (this.loaded && !this.targets.length && !this.loadError)
      nodes.push(
        h(
          'div',
          { class: 'empty-targets', 'data-testid': 'no-targets' },
          h('p', null, tr('assign.list.empty')),
          h('p', { class: 'muted small' }, tr('assign.agent.what')),
          newAgent('new-agent-empty', true),
        ),
      );
    else nodes.unshift(h('div', { class: 'row list-actions' }, newAgent('new-agent', false)));
    mount(this.list, ...nodes);
  }

  private catalogPlugins(): Plugin[] {
    // every plugin an entry can assign: managed ones first, then Cursor's and skillPluginPaths (catalog order)
    return (this.ix?.doc.plugins ?? []).filter((p) => p.source === 'plugboard' || !!p.entry);
  }

  private renderDetail(): void {
    const t = this.base;
    if (!t) {
      mount(
        this.detail,
        this.renderOpNotice(),
        h('p', { class: 'muted' }, this.loaded ? tr('assign.detail.select') : tr('assign.detail.loading')),
      );
      return;
    }
    const readOnly = t.readOnly;
    const defaults = t.kind === 'template-slot' && t.inherits && !this.customising;
    const editable = !readOnly && !defaults && !this.busy;
    const checked = readOnly || defaults ? t.effective : this.draft;
    const refusedNames = new Set(this.notice?.names ?? []);

    const head = h(
      'div',
      { class: 'detail-head' },
      h('h2', { 'data-testid': 'assign-title' }, targetLabel(t)),
      h(
        'div',
        { class: 'detail-badges' },
        badge(kindLabel(t.kind), 'fmt-none'),
        t.kind === 'template-slot'
          ? h(
              'span',
              { 'data-testid': 'slot-mode' },
              badge(
                defaults ? tr('assign.badge.agentDefaults') : tr('assign.badge.custom'),
                defaults ? 'fmt-none' : 'info',
              ),
            )
          : null,
        readOnly ? badge(tr('assign.badge.readOnly'), 'warning') : null,
        t.ref && t.kind !== 'agent'
          ? h('span', { class: 'muted small' }, tr('assign.detail.agent', { ref: t.ref }))
          : null,
      ),
      h('p', { class: 'muted small mono', title: t.file }, t.file),
    );

    const explain: Node[] = [];
    if (readOnly)
      explain.push(h('p', { class: 'notice notice-info', 'data-testid': 'readonly-reason' }, readOnlyReason(t)));
    if (defaults)
      explain.push(
        h(
          'div',
          { class: 'row defaults-row' },
          h(
            'p',
            { class: 'muted small grow', 'data-testid': 'defaults-note' },
            tr('assign.defaults.note', { ref: t.ref ?? '' }),
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'btn',
              'data-testid': 'slot-customise',
              disabled: this.busy,
              onclick: () => {
                this.customising = true;
                this.draft = [...t.effective];
                this.render();
              },
            },
            tr('assign.defaults.customise'),
          ),
        ),
      );
    else if (t.kind === 'template-slot' && !readOnly)
      explain.push(
        h(
          'div',
          { class: 'row defaults-row' },
          h('p', { class: 'muted small grow' }, tr('assign.custom.note', { ref: t.ref ?? '' })),
          h(
            'button',
            {
              type: 'button',
              class: 'btn',
              'data-testid': 'slot-use-defaults',
              disabled: this.busy || !!this.fresh || this.dirty,
              title: this.dirty ? tr('assign.draftFirst') : undefined,
              onclick: () => void this.useDefaults(),
            },
            tr('assign.custom.useDefaults'),
          ),
        ),
      );

    // the checklist: every assignable plugin of the catalog, then ids the target names that the catalog lacks
    const plugins = this.catalogPlugins();
    const known = new Set(plugins.map((p) => p.id));
    const missing = [...new Set([...checked, ...t.managed])].filter((id) => !known.has(id));
    const rows: HTMLElement[] = [];
    const doc = this.ix?.doc;
    const row = (id: string, p: Plugin | undefined) => {
      const on = checked.includes(id);
      // a package the specification rejects counts as valid once the user chose to launch it as Claude loads it
      const asClaude = !!p && !!doc && launchesAsClaude(p, doc);
      const valid = !!p && (p.valid || asClaude);
      // invalid (or unknown) entries can only be unchecked
      const disabled = !editable || (!valid && !on);
      const box = h('input', {
        type: 'checkbox',
        'data-testid': 'assign-check',
        'data-id': id,
        disabled,
        'aria-describedby': `assign-desc-${id}`,
      });
      box.checked = on;
      box.addEventListener('change', () => this.toggle(id, box.checked));
      const servers = p?.mcp?.servers?.filter((s) => s.valid).length ?? 0;
      rows.push(
        h(
          'li',
          {
            class: `assign-row${refusedNames.has(id) ? ' refused-row' : ''}${disabled ? ' disabled' : ''}`,
            'data-testid': 'assign-row',
            'data-id': id,
          },
          h('label', { class: 'check' }, box, h('span', { class: 'mono' }, id)),
          h(
            'span',
            { class: 'assign-meta', id: `assign-desc-${id}` },
            p && p.name !== id ? h('span', { class: 'muted small' }, p.name) : null,
            p ? h('span', { class: 'muted small' }, p.version) : null,
            !p
              ? badge(tr('assign.row.notInCatalog'), 'error')
              : asClaude
                ? h(
                    'span',
                    {
                      class: 'badge badge-info',
                      'data-testid': 'launch-as-note',
                      title: tr('assign.row.launchAsTitle'),
                    },
                    tr('assign.row.launchAs'),
                  )
                : !p.valid
                  ? badge(tr('assign.row.invalid'), 'error')
                  : null,
            p && p.format === 'legacy' ? badge(tr('assign.row.legacy'), 'warning') : null,
            p && p.source !== 'plugboard'
              ? h('span', { class: 'badge', 'data-testid': 'assign-source', title: p.entry }, SOURCE_LABEL[p.source]())
              : null,
            servers ? badge(tr('assign.row.mcpServers', { n: servers }), 'info') : null,
            refusedNames.has(id)
              ? h('span', { class: 'error-text small', 'data-testid': 'refused-name' }, tr('assign.row.refused'))
              : null,
          ),
          p && !asClaude && claudeOnly(p)
            ? h(
                'p',
                { class: 'assign-note muted small', 'data-testid': 'claude-only' },
                claudeOnlySentence(p),
                tr('assign.claudeOnly.before'),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'link',
                    'data-testid': 'show-plugin',
                    onclick: () => this.ctx.showPlugin(id),
                    title: tr('assign.claudeOnly.linkTitle'),
                  },
                  tr('assign.claudeOnly.link'),
                ),
                tr('assign.claudeOnly.after'),
              )
            : null,
        ),
      );
    };
    for (const p of plugins) row(p.id, p);
    for (const id of missing) row(id, undefined);

    const unmanaged = t.unmanaged.length
      ? h(
          'section',
          { class: 'card', 'data-testid': 'unmanaged', 'aria-labelledby': 'h-unmanaged' },
          h('h3', { id: 'h-unmanaged' }, tr('assign.unmanaged.title')),
          h('p', { class: 'muted small' }, tr('assign.unmanaged.help')),
          h(
            'ul',
            { class: 'plain mono small' },
            ...t.unmanaged.map((u) => h('li', { 'data-testid': 'unmanaged-entry' }, u)),
          ),
        )
      : null;

    const dirty = this.dirty;
    const status = h(
      'p',
      {
        class: `notice${this.notice ? ` notice-${this.notice.kind === 'ok' ? 'ok' : 'error'}` : ''}`,
        'data-testid': 'assign-status',
        'data-kind': this.notice?.kind ?? (dirty ? 'dirty' : ''),
        role: 'status',
        'aria-live': 'polite',
      },
      this.busy
        ? tr('assign.status.saving')
        : this.notice
          ? this.notice.text +
            (this.notice.names?.length
              ? tr('assign.notice.names', { names: this.notice.names.join(tr('assign.sep')) })
              : '')
          : dirty
            ? tr('assign.status.unsaved')
            : '',
    );
    status.hidden = !status.textContent;
    const actions = readOnly
      ? null
      : h(
          'div',
          { class: 'row assign-actions' },
          status,
          h('span', { class: 'grow' }),
          h(
            'button',
            {
              type: 'button',
              class: 'btn',
              'data-testid': 'assign-reset',
              disabled: this.busy || (!dirty && !this.fresh),
              onclick: () => this.reset(),
            },
            tr('assign.reset'),
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'btn btn-primary',
              'data-testid': 'assign-save',
              disabled: this.busy || !dirty || !!this.fresh,
              title: this.fresh ? tr('assign.save.staleTitle') : undefined,
              onclick: () => void this.save(),
            },
            tr('assign.save'),
          ),
        );

    const targetIssues = this.issues.filter((i) => i.message.startsWith(`${t.id}:`));
    this.launch.setTarget(t, dirty);
    this.tryPanel.set(t.kind === 'active' ? null : { target: t.id }, t.backend);
    this.budgetPanel.set(
      t.kind === 'active' ? null : { target: t.id },
      `${this.ix?.doc.seq ?? 0}|${t.hash}`,
      t.backend,
    );
    this.historyBox = h('section', { class: 'card', 'data-testid': 'history', 'aria-labelledby': 'h-history' });
    mount(
      this.detail,
      h(
        'div',
        {
          class: 'detail-body',
          'data-testid': 'assign-target',
          'data-id': t.id,
          'data-dirty': String(dirty),
          'data-stale': String(!!this.fresh),
        },
        this.renderOpNotice(),
        head,
        this.targetActions(t),
        ...explain,
        h(
          'section',
          { class: 'card', 'aria-labelledby': 'h-checklist', 'data-testid': 'checklist' },
          h(
            'h3',
            { id: 'h-checklist' },
            readOnly || defaults ? tr('assign.plugins.titleReadOnly') : tr('assign.plugins.title'),
          ),
          h(
            'ul',
            { class: 'plain assign-list', 'data-testid': 'assign-list', 'aria-labelledby': 'h-checklist' },
            ...rows,
          ),
          plugins.length ? null : h('p', { class: 'muted' }, tr('assign.plugins.empty')),
          actions,
        ),
        this.launch.el,
        t.kind === 'active' ? null : this.budgetPanel.el,
        this.tryPanel.el,
        unmanaged,
        targetIssues.length
          ? h(
              'section',
              { class: 'card' },
              h('h3', null, tr('assign.issues.title')),
              h('ul', { class: 'plain' }, ...targetIssues.map((i) => issueLine(i))),
            )
          : null,
        this.historyBox,
      ),
    );
    this.renderHistory();
  }

  private historyBox: HTMLElement | null = null;

  private renderHistory(): void {
    const box = this.historyBox;
    if (!box) return;
    const canRevert = !this.busy && !this.dirty && !this.base?.readOnly;
    const fmt = (dirs: string[], unset?: boolean) =>
      unset
        ? tr('assign.history.agentDefaults')
        : dirs.length
          ? dirs.join(tr('assign.sep'))
          : tr('assign.history.none');
    mount(
      box,
      h('h3', { id: 'h-history' }, tr('assign.history.title')),
      this.historyError ? h('p', { class: 'notice notice-error' }, this.historyError) : null,
      this.history.length
        ? h(
            'ol',
            { class: 'plain history-list' },
            ...this.history.map((e) =>
              h(
                'li',
                { class: 'history-entry', 'data-testid': 'history-entry', 'data-id': String(e.id) },
                h(
                  'div',
                  { class: 'history-head' },
                  h('strong', null, `#${e.id}`),
                  h('time', { datetime: e.time, class: 'muted small' }, fmtDateTime(e.time)),
                  h('span', { class: 'muted small' }, e.actor),
                  e.revertOf ? badge(tr('assign.history.revertOf', { id: String(e.revertOf) }), 'info') : null,
                  e.kind === 'ack' ? badge(tr('assign.history.ack'), 'info') : null,
                  h('span', { class: 'grow' }),
                  e.kind === 'ack'
                    ? null
                    : h(
                        'button',
                        {
                          type: 'button',
                          class: 'btn btn-small',
                          'data-testid': 'history-revert',
                          disabled: !canRevert,
                          title: this.dirty
                            ? tr('assign.draftFirst')
                            : tr('assign.history.revertTitle', { id: String(e.id) }),
                          onclick: () => void this.revert(e),
                        },
                        tr('assign.history.revert'),
                      ),
                ),
                e.kind === 'ack' ? null : historyChange(e, fmt),
                e.acknowledged?.length
                  ? h(
                      'div',
                      { class: 'small muted' },
                      tr('assign.history.acknowledged', { list: e.acknowledged.join(tr('assign.sep')) }),
                    )
                  : null,
                e.acks?.length
                  ? h(
                      'ul',
                      { class: 'plain small muted history-acks', 'data-testid': 'history-acks' },
                      ...e.acks.map((a) =>
                        h(
                          'li',
                          { 'data-testid': 'history-ack', 'data-plugin': a.plugin, 'data-server': a.server },
                          h('code', null, `${a.plugin}/${a.server}`),
                          a.type ? tr('assign.history.ackType', { type: a.type }) : '',
                          tr('assign.history.digest'),
                          h('code', { title: a.digest }, shortDigest(a.digest)),
                        ),
                      ),
                    )
                  : null,
              ),
            ),
          )
        : h('p', { class: 'muted small' }, tr('assign.history.empty')),
    );
  }
}
