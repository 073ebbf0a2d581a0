// The settings the user is editing: the last {settings, hash} the backend returned and a draft.
// Edits (skill plugin paths, per-skill enable switches from any view) change the draft; save sends
// it with the hash it was based on, so a file changed on disk in between is refused as `stale`
// instead of being overwritten. The rules (what a path may be, what a name means) stay in Go.

import { api, ApiError, errorText } from './bridge';
import { t } from './i18n';
import type { Settings, SettingsEnvelope } from './types';

export type Notice = { kind: 'ok' | 'error' | 'warn'; text: string } | null;

function normalise(s: Partial<Settings> | null | undefined): Settings {
  const out: Settings = {
    skillPluginPaths: [...(s?.skillPluginPaths ?? [])],
    skillsEnabled: { ...(s?.skillsEnabled ?? {}) },
    trustedWorkspaces: [...(s?.trustedWorkspaces ?? [])],
    activityRetentionDays: s?.activityRetentionDays ?? 0,
  };
  if (s?.launchAs) out.launchAs = { ...s.launchAs };
  return out;
}

function same(a: Settings, b: Settings): boolean {
  const ka = Object.keys(a.skillsEnabled).sort();
  const kb = Object.keys(b.skillsEnabled).sort();
  return (
    JSON.stringify(a.skillPluginPaths) === JSON.stringify(b.skillPluginPaths) &&
    (a.activityRetentionDays ?? 0) === (b.activityRetentionDays ?? 0) &&
    JSON.stringify(ka.map((k) => [k, a.skillsEnabled[k]])) === JSON.stringify(kb.map((k) => [k, b.skillsEnabled[k]]))
  );
}

export class SettingsModel {
  saved: Settings | null = null;
  hash = '';
  draft: Settings | null = null;
  notice: Notice = null;
  busy = false;
  private listeners: Array<() => void> = [];

  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  private emit(): void {
    for (const fn of this.listeners) fn();
  }

  get dirty(): boolean {
    return !!this.saved && !!this.draft && !same(this.saved, this.draft);
  }

  private accept(env: SettingsEnvelope, keepDraft = false): void {
    const prevSaved = this.saved;
    this.saved = normalise(env.settings);
    this.hash = env.hash;
    if (keepDraft && this.draft && prevSaved && !same(prevSaved, this.draft)) {
      this.draft.trustedWorkspaces = [...this.saved.trustedWorkspaces];
    } else {
      this.draft = normalise(this.saved);
    }
  }

  /** Loads the settings from the backend; keepDraft keeps unsaved edits (used after a trust change). */
  async load(keepDraft = false): Promise<void> {
    try {
      this.accept(await api.settings(), keepDraft);
    } catch (e) {
      this.notice = { kind: 'error', text: t('common.settings.cannotRead', { msg: errorText(e) }) };
    }
    this.emit();
  }

  /** The value a skill's switch shows: the draft's entry, else what the catalog says. */
  enabled(id: string, catalogValue: boolean): boolean {
    const v = this.draft?.skillsEnabled[id];
    return v === undefined ? catalogValue : v;
  }

  /** Switches a skill; keepEntry keeps an explicit `true` (the Settings list) instead of dropping it. */
  setEnabled(id: string, on: boolean, keepEntry = false): void {
    if (!this.draft) return;
    // An enabled skill needs no entry unless the saved file had one; keep the file minimal.
    if (on && !keepEntry && this.saved?.skillsEnabled[id] === undefined) delete this.draft.skillsEnabled[id];
    else this.draft.skillsEnabled[id] = on;
    this.notice = null;
    this.emit();
  }

  /**
   * Switches a skill at once, as an editor's extension switch does: the saved settings with only
   * this entry changed are written (with the hash they were read at), and the draft keeps any other
   * unsaved edit. Switches made in quick succession are written one after another. On `stale` the
   * file is read again and the switch shows what it holds; on another error the switch goes back.
   */
  switchNow(id: string, on: boolean): Promise<void> {
    this.setEnabled(id, on);
    this.writes = this.writes.then(() => this.writeSwitch(id, on));
    return this.writes;
  }

  private writes: Promise<void> = Promise.resolve();

  private async writeSwitch(id: string, on: boolean): Promise<void> {
    if (!this.saved) return;
    const out = normalise(this.saved);
    if (on && this.saved.skillsEnabled[id] === undefined) delete out.skillsEnabled[id];
    else out.skillsEnabled[id] = on;
    try {
      const env = await api.saveSettings(out, this.hash);
      this.saved = normalise(env.settings);
      this.hash = env.hash;
      this.notice = null;
    } catch (e) {
      if (e instanceof ApiError && e.code === 'stale') {
        await this.readAfterStale();
      } else {
        if (this.draft) {
          const was = this.saved.skillsEnabled[id];
          if (was === undefined) delete this.draft.skillsEnabled[id];
          else this.draft.skillsEnabled[id] = was;
        }
        this.notice = { kind: 'error', text: t('common.settings.notSaved', { msg: errorText(e) }) };
      }
    }
    this.emit();
  }

  removeEnabled(id: string): void {
    if (!this.draft) return;
    delete this.draft.skillsEnabled[id];
    this.notice = null;
    this.emit();
  }

  addPath(path: string): boolean {
    const p = path.trim();
    if (!this.draft || !p) return false;
    if (this.draft.skillPluginPaths.includes(p)) {
      this.notice = { kind: 'warn', text: t('common.settings.alreadyListed', { path: p }) };
      this.emit();
      return false;
    }
    this.draft.skillPluginPaths.push(p);
    this.notice = null;
    this.emit();
    return true;
  }

  removePath(i: number): void {
    if (!this.draft) return;
    this.draft.skillPluginPaths.splice(i, 1);
    this.notice = null;
    this.emit();
  }

  /**
   * Sets how many days of activity to keep (0 keeps all). Returns false, and says why, for what is
   * not a whole number of 0 or more; the draft keeps its value then.
   */
  setRetention(text: string): boolean {
    if (!this.draft) return false;
    const days = text.trim();
    if (!/^\d+$/.test(days) || !Number.isSafeInteger(Number(days))) {
      this.notice = {
        kind: 'warn',
        text: t('common.settings.retentionInvalid'),
      };
      this.emit();
      return false;
    }
    this.draft.activityRetentionDays = Number(days);
    this.notice = null;
    this.emit();
    return true;
  }

  discard(): void {
    if (this.saved) this.draft = normalise(this.saved);
    this.notice = null;
    this.emit();
  }

  /** A write was refused as stale: what is on disk is read again, and the notice says so. */
  private async readAfterStale(): Promise<void> {
    try {
      this.accept(await api.settings());
    } catch {
      /* the notice below still applies */
    }
    this.notice = { kind: 'warn', text: t('common.settings.stale') };
  }

  /** Saves the draft. On `stale`, reloads what is on disk and says so; other errors keep the draft. */
  async save(): Promise<void> {
    if (!this.draft || this.busy) return;
    this.busy = true;
    this.notice = null;
    this.emit();
    try {
      // launchAs is not edited here (SetLaunchAs writes it): send it back as it was read, so a save keeps it
      const out = normalise(this.draft);
      delete out.launchAs;
      if (this.saved?.launchAs) out.launchAs = { ...this.saved.launchAs };
      this.accept(await api.saveSettings(out, this.hash));
      this.notice = { kind: 'ok', text: t('common.settings.saved') };
    } catch (e) {
      if (e instanceof ApiError && e.code === 'stale') {
        await this.readAfterStale();
      } else {
        this.notice = { kind: 'error', text: t('common.settings.notSaved', { msg: errorText(e) }) };
      }
    } finally {
      this.busy = false;
      this.emit();
    }
  }
}
