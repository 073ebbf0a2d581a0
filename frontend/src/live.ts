// The live catalog in the header (U4): the watch state (ok / issues / reloading / paused) with a
// pause/resume toggle (WatchState, PauseWatching, watch:state events), and a quiet "Reloaded"
// mark that fades after every catalog:reloaded. The catalog itself reaches the page through
// catalog:updated and the CatalogFeed; this module only reports.

import { api, ApiError, errorText } from './bridge';
import { h } from './dom';
import { fmtNumber, type Key, t } from './i18n';
import { icons } from './icons';
import type { ReloadedEvent, WatchState } from './types';

/** How long the Reloaded mark stays before it fades (longer when a plugin turned invalid). */
const MARK_MS = 5000;
const MARK_INVALID_MS = 10000;
/** The fade itself; keep in step with .reload-chip's transition in style.css. */
const FADE_MS = 600;
/** How often, and how many times, a "starting" (before the watches are armed) is asked again. */
const RECHECK_MS = 1000;
const RECHECKS = 10;

const LABEL: Record<WatchState['state'], Key> = {
  ok: 'shell.live.ok',
  issues: 'shell.live.issues',
  reloading: 'shell.live.reloading',
  paused: 'shell.live.paused',
  starting: 'shell.live.starting',
};

const TITLE: Record<WatchState['state'], Key> = {
  ok: 'shell.live.okTitle',
  issues: 'shell.live.issuesTitle',
  reloading: 'shell.live.reloadingTitle',
  paused: 'shell.live.pausedTitle',
  starting: 'shell.live.startingTitle',
};

function ms(n: number): string {
  return t('shell.live.ms', {
    ms: n < 10 ? fmtNumber(n, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) : Math.round(n),
  });
}

/** "Reloaded · 2 changes · 14 ms" and, when a plugin turned invalid, its name. */
export function reloadedText(ev: ReloadedEvent): string {
  const n = ev.changes?.length ?? 0;
  const parts = [
    t(ev.full ? 'shell.live.rescanned' : 'shell.live.reloaded'),
    n ? t('shell.live.changes', { n }) : t('shell.live.noChanges'),
    ms(ev.ms ?? 0),
  ];
  if (ev.invalid?.length) parts.push(t('shell.live.nowInvalid', { names: ev.invalid.join(', ') }));
  return parts.join(' · ');
}

export class LiveStatus {
  readonly el: HTMLElement;
  private readonly chip: HTMLElement;
  private readonly state: HTMLElement;
  private readonly label: HTMLElement;
  private readonly toggle: HTMLButtonElement;
  private current: WatchState | null = null;
  private seq = 0;
  private fadeTimer = 0;
  private hideTimer = 0;
  private busy = false;
  /** A watch:state event or a PauseWatching answer arrived: no need to ask again. */
  private heard = false;

  constructor() {
    this.chip = h('span', {
      class: 'reload-chip',
      'data-testid': 'reloaded',
      role: 'status',
      'aria-live': 'polite',
      hidden: true,
    });
    this.label = h('span', null);
    this.state = h(
      'span',
      { class: 'watch-state', 'data-testid': 'watch-state', hidden: true },
      h('span', { class: 'dot', 'aria-hidden': 'true' }),
      this.label,
    );
    this.toggle = h('button', {
      type: 'button',
      class: 'btn btn-icon btn-quiet',
      'data-testid': 'watch-toggle',
      hidden: true,
      onclick: () => void this.pause(!this.current?.paused),
    });
    this.el = h('div', { class: 'live', 'data-testid': 'live' }, this.chip, this.state, this.toggle);
  }

  /**
   * Asks for the state; later changes come as watch:state events. Until the backend has armed
   * its watches (just after it starts) WatchState answers "starting", and the event that follows
   * may come before the page's event stream is open: so "starting" is asked again a few times,
   * until an event or a live answer arrives.
   */
  async load(attempt = 0): Promise<void> {
    if (this.heard) return;
    let st: WatchState;
    try {
      st = await api.watchState();
    } catch {
      this.state.hidden = true; // a backend without live reload: nothing to show
      this.toggle.hidden = true;
      return;
    }
    if (this.heard) return;
    this.set(st, false);
    if (st.state === 'starting' && attempt < RECHECKS) window.setTimeout(() => void this.load(attempt + 1), RECHECK_MS);
  }

  /** A watch:state event (heard) or a method's answer. */
  set(st: WatchState, heard = true): void {
    if (!st || !st.state) return;
    if (heard) this.heard = true;
    this.current = st;
    this.state.hidden = false;
    this.state.dataset.state = st.state;
    this.label.textContent = LABEL[st.state] ? t(LABEL[st.state]) : st.state;
    this.state.title = (TITLE[st.state] ? t(TITLE[st.state]) : '') + (st.limited ? ' ' + t('shell.live.limited') : '');
    this.toggle.hidden = st.state === 'starting';
    this.toggle.disabled = this.busy;
    const name = t(st.paused ? 'shell.live.resume' : 'shell.live.pause');
    this.toggle.setAttribute('aria-label', name);
    this.toggle.title = name;
    this.toggle.replaceChildren(st.paused ? icons.play() : icons.pause());
  }

  private async pause(paused: boolean): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.toggle.disabled = true;
    try {
      this.set(await api.pauseWatching(paused));
    } catch (e) {
      const msg = errorText(e);
      if (e instanceof ApiError && e.code === 'unsupported') this.toggle.hidden = true;
      this.state.title = t(paused ? 'shell.live.cannotPause' : 'shell.live.cannotResume', { msg });
    } finally {
      this.busy = false;
      this.toggle.disabled = false;
    }
  }

  /** A catalog:reloaded event: show the mark, then let it fade. */
  reloaded(ev: ReloadedEvent): void {
    window.clearTimeout(this.fadeTimer);
    window.clearTimeout(this.hideTimer);
    this.seq++;
    const invalid = !!ev.invalid?.length;
    this.chip.textContent = reloadedText(ev);
    this.chip.dataset.seq = String(this.seq);
    this.chip.dataset.kind = invalid ? 'error' : 'ok';
    const lines = (ev.changes ?? [])
      .slice(0, 12)
      .map((c) => `${c.kind} ${c.what} ${c.id}${c.detail ? `: ${c.detail}` : ''}`);
    if ((ev.changes?.length ?? 0) > lines.length)
      lines.push(t('shell.live.andMore', { n: ev.changes!.length - lines.length }));
    this.chip.title = lines.join('\n');
    this.chip.hidden = false;
    this.chip.classList.remove('fading');
    this.fadeTimer = window.setTimeout(
      () => {
        this.chip.classList.add('fading');
        this.hideTimer = window.setTimeout(() => (this.chip.hidden = true), FADE_MS);
      },
      invalid ? MARK_INVALID_MS : MARK_MS,
    );
  }
}
