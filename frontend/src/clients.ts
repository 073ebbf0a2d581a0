// What each real client (Claude Code, Cursor, Codex, PI) loads from a package, as the backend judged
// it (Plugin.clients), and the user's "launch as Claude loads it" choice. The rules stay in Go: this
// only names the states and words them.

import { h } from './dom';
import { type Key, t } from './i18n';
import type { CatalogDoc, ClientName, ClientVerdict, Plugin } from './types';

export const CLIENTS: ClientName[] = ['claude', 'cursor', 'codex', 'pi'];

// Product names: shown as they are in every language.
export const CLIENT_LABEL: Record<ClientName, string> = {
  claude: 'Claude', // i18n-ignore
  cursor: 'Cursor', // i18n-ignore
  codex: 'Codex', // i18n-ignore
  pi: 'PI',
};

/** The long name, for sentences. */
export const CLIENT_NAME: Record<ClientName, string> = {
  claude: 'Claude Code', // i18n-ignore
  cursor: 'Cursor', // i18n-ignore
  codex: 'Codex', // i18n-ignore
  pi: 'PI',
};

/** loads; refused (a package for that client, which it would not load); none (not its package at all). */
export type ClientState = 'loads' | 'refused' | 'none';

export function clientState(v: ClientVerdict): ClientState {
  if (!v.package) return 'none';
  return v.loads ? 'loads' : 'refused';
}

const STATE_KEY: Record<ClientState, Key> = {
  loads: 'plugins.clients.state.loads',
  refused: 'plugins.clients.state.refused',
  none: 'plugins.clients.state.none',
};

/** The state in words: "loads", "does not load", "not a package". */
export function stateText(state: ClientState): string {
  return t(STATE_KEY[state]);
}

const TITLE_KEY: Record<ClientState, Key> = {
  loads: 'plugins.clients.title.loads',
  refused: 'plugins.clients.title.refused',
  none: 'plugins.clients.title.none',
};

// Without the reason: the list part of a large catalog leaves it to the whole document.
const SHORT_TITLE_KEY: Record<ClientState, Key> = {
  loads: 'plugins.clients.titleShort.loads',
  refused: 'plugins.clients.titleShort.refused',
  none: 'plugins.clients.titleShort.none',
};

/** The compact badge of one client (the Plugins list): its name, coloured by state, why as the tooltip. */
export function clientBadge(c: ClientName, v: ClientVerdict): HTMLElement {
  const state = clientState(v);
  return h(
    'span',
    {
      class: `cbadge cbadge-${state}`,
      'data-testid': 'client-badge',
      'data-client': c,
      'data-state': state,
      title: v.why
        ? t(TITLE_KEY[state], { client: CLIENT_NAME[c], why: v.why })
        : t(SHORT_TITLE_KEY[state], { client: CLIENT_NAME[c] }),
    },
    CLIENT_LABEL[c],
  );
}

/** The client the user chose to launch this plugin as ("" for none): settings' launchAs (a plugin carries none). */
export function launchAsOf(p: Plugin, doc: CatalogDoc): string {
  return doc.settings.launchAs?.[p.id] ?? '';
}

/** The specification rejects the package but Claude Code loads it. */
export function claudeOnly(p: Plugin): boolean {
  return !p.valid && !!p.clients?.claude.loads;
}

/** An invalid package the user chose to launch as Claude loads it, and Claude still loads it (the backend's rule). */
export function launchesAsClaude(p: Plugin, doc: CatalogDoc): boolean {
  return claudeOnly(p) && launchAsOf(p, doc) === 'claude';
}

/** "The specification rejects this package, but Claude Code loads it: <why>" */
export function claudeOnlySentence(p: Plugin): string {
  const why = (p.clients?.claude.why ?? '').trim();
  if (!why) return t('plugins.clients.claudeOnly');
  return t(/[.!?]$/.test(why) ? 'plugins.clients.claudeOnlyWhyEnded' : 'plugins.clients.claudeOnlyWhy', { why });
}
