// The only module that knows how the page reaches the Go methods of app.Page, the part of app.Service
// the page may call (docs/api.md). The Method type below names them all; a Go test (TestAPISurface in
// app/) reads it and the calls in `api` and checks them against the Go methods and the docs.
//
// In the desktop window Wails injects `window.go.app.Page.<Method>(...args)` (each returns a Promise)
// and `window.runtime.EventsOn(name, cb)`. In a browser the same methods are `POST /api/<Method>` with a
// JSON array of the arguments, authorised by the token of the URL `plugboard serve` prints (kept in
// sessionStorage so a reload works; the server also sets a cookie), and events arrive over
// `GET /api/events` (server-sent events). Every failure becomes an ApiError with a code.

import type { PageMethods } from './models.gen';
import type { AckRef, ApiErrorBody, AssignChange, EventMap, LinkInto, Settings } from './types';
import { currentLang, type Key, t } from './i18n';

type Method =
  | 'Catalog'
  | 'CatalogList'
  | 'Rescan'
  | 'Settings'
  | 'SaveSettings'
  | 'OpenWorkspace'
  | 'SetWorkspaceTrust'
  | 'SetDraftDirty'
  | 'Targets'
  | 'Assign'
  | 'SetLaunchAs'
  | 'History'
  | 'Revert'
  | 'NewAgent'
  | 'CopyAgent'
  | 'RenameAgent'
  | 'RemoveAgent'
  | 'AddSlot'
  | 'RemoveSlot'
  | 'Problems'
  | 'OpenFile'
  | 'Launch'
  | 'Backends'
  | 'Acknowledge'
  | 'WatchState'
  | 'ClientAnswers'
  | 'PauseWatching'
  | 'SetLanguage'
  | 'Links'
  | 'Link'
  | 'Unlink'
  | 'PickFolder'
  | 'Snapshots'
  | 'SnapshotDiff'
  | 'Activity'
  | 'ActivityCSV'
  | 'SaveActivityCSV'
  | 'Try'
  | 'Install'
  | 'Uninstall'
  | 'Installed'
  | 'Marketplaces'
  | 'AddMarketplace'
  | 'RemoveMarketplace'
  | 'CheckUpdates'
  | 'Update'
  | 'Rollback'
  | 'Budget'
  | 'CheckMCP'
  | 'Version'
  | 'TakeOpen'
  | 'Places'
  | 'Autostart'
  | 'SetAutostart';

// Method names exactly the methods of app.Page that models.gen.ts lists with their Go argument and result
// types (a compile-time check), so each call below is typed by Go's signature.
type Holds<T extends true> = T;
export type MethodsAreGo = Holds<
  [Method] extends [keyof PageMethods] ? ([keyof PageMethods] extends [Method] ? true : false) : false
>;
type Args<M extends Method> = Parameters<PageMethods[M]>;
type Result<M extends Method> = ReturnType<PageMethods[M]>;

interface WailsService {
  [method: string]: ((...args: unknown[]) => Promise<unknown>) | undefined;
}

interface WailsRuntime {
  EventsOn?: (name: string, cb: (...data: unknown[]) => void) => (() => void) | void;
}

declare global {
  interface Window {
    go?: { app?: { Page?: WailsService } };
    runtime?: WailsRuntime;
  }
}

/**
 * A failed call: `code` is the backend's (`stale`, `invalid`, `not-found`, `io`, `ack-needed`,
 * `refused`, `read-only`, `no-terminal`, `unsupported`) or `transport`; `body` is the whole error
 * object (`current`, `servers`, `names`, `collisions`).
 */
export class ApiError extends Error {
  readonly code: string;
  readonly body: ApiErrorBody;
  constructor(code: string, message: string, body?: ApiErrorBody) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.body = body ?? { code, message };
  }
}

const TOKEN_KEY = 'plugboard.token';

function wailsService(): WailsService | undefined {
  try {
    return window.go?.app?.Page;
  } catch {
    return undefined;
  }
}

/** True in the desktop window (Wails bindings present). */
export function isDesktop(): boolean {
  return wailsService() !== undefined;
}

/**
 * Reads `?token=` once, keeps it in sessionStorage and takes it out of the address bar so it does not
 * linger in history or screenshots. Later calls return the stored token.
 */
function token(): string {
  let stored = '';
  try {
    stored = sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    /* storage disabled: rely on the cookie */
  }
  const url = new URL(window.location.href);
  const fromURL = url.searchParams.get('token');
  if (fromURL) {
    stored = fromURL;
    try {
      sessionStorage.setItem(TOKEN_KEY, fromURL);
    } catch {
      /* ignore */
    }
    url.searchParams.delete('token');
    try {
      history.replaceState(history.state, '', url.pathname + url.search + url.hash);
    } catch {
      /* ignore */
    }
  }
  return stored;
}

let cachedToken: string | undefined;

/** The message of anything thrown, for a line in the page. */
export function errorText(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  if (!(e instanceof ApiError) || currentLang() === 'en') return msg;
  // In another language the page's own sentence for the reason (or the code) leads; the
  // backend's English text, which names the files and the cause, follows as its detail.
  const key = [`bridge.reason.${e.body?.reason ?? ''}`, `bridge.code.${e.code}`].find((k) => k in SAID);
  return key ? t('bridge.detail', { said: t(key as Key), msg }) : msg;
}

/** The reasons and codes the page says in its own words (the keys of bridge.reason.* and bridge.code.*). */
const SAID: Record<string, true> = Object.fromEntries(
  [
    'reason.exists',
    'reason.not-plugin',
    'reason.rule',
    'reason.tampered',
    'reason.not-ours',
    'reason.not-installable',
    'reason.marketplace',
    'reason.invalid-package',
    'reason.in-use',
    'code.not-found',
    'code.invalid',
    'code.io',
    'code.stale',
    'code.refused',
    'code.unsupported',
  ].map((k) => [`bridge.${k}`, true]),
);

function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e && typeof e === 'object' && 'code' in e && 'message' in e) {
    const b = e as ApiErrorBody;
    return new ApiError(String(b.code), String(b.message), b);
  }
  if (typeof e === 'string') {
    // Wails rejects with the error's text; an ErrorFormatter may have made it a JSON object.
    try {
      const b = JSON.parse(e) as ApiErrorBody;
      if (b && typeof b.code === 'string') return new ApiError(b.code, String(b.message ?? ''), b);
    } catch {
      /* plain text */
    }
    return new ApiError('transport', e);
  }
  if (e instanceof Error) return new ApiError('transport', e.message);
  return new ApiError('transport', String(e));
}

/**
 * Resolves once the page has painted for the first time (or after 50 ms, for a hidden tab): parsing
 * the catalog of a large home holds the main thread for a while, and the shell should be on screen
 * before that starts.
 */
function firstPaint(): Promise<void> {
  try {
    if (performance.getEntriesByType('paint').length > 0) return Promise.resolve();
  } catch {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 50);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer);
        resolve();
      }, 0),
    );
  });
}

async function callHTTP<M extends Method>(method: M, args: Args<M>): Promise<Result<M>> {
  if (cachedToken === undefined) cachedToken = token();
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (cachedToken) headers['X-Plugboard-Token'] = cachedToken;
  let res: Response;
  try {
    res = await fetch(`/api/${method}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(args),
      credentials: 'same-origin',
    });
  } catch (e) {
    throw new ApiError('transport', t('bridge.unreachable', { msg: errorText(e) }));
  }
  if (!res.ok) {
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      body = undefined;
    }
    if (body && typeof body === 'object' && 'code' in body) throw toApiError(body);
    throw new ApiError(
      'transport',
      t('bridge.http', { method, status: String(res.status), statusText: res.statusText }).trim(),
    );
  }
  // the list part is small: parsed at once, its rows are the first paint that matters
  if (method === 'CatalogList') performance.mark('plugboard:list-headers');
  else await firstPaint();
  try {
    return (await res.json()) as Result<M>;
  } catch (e) {
    throw new ApiError('transport', t('bridge.notJSON', { method, msg: errorText(e) }));
  }
}

/**
 * Calls a method. A desktop binding may hand back a document as JSON text, which is parsed; a
 * method whose result is itself a string (PickFolder) passes text = true to keep it as it is.
 */
async function invoke<M extends Method>(method: M, args: Args<M>, text = false): Promise<Result<M>> {
  const svc = wailsService();
  if (!svc) return callHTTP(method, args);
  const fn = svc[method];
  if (typeof fn !== 'function') throw new ApiError('transport', t('bridge.noBinding', { method }));
  try {
    const out = await fn(...args);
    return (typeof out === 'string' && !text ? JSON.parse(out) : out) as Result<M>;
  } catch (e) {
    throw toApiError(e);
  }
}

function call<M extends Method>(method: M, ...args: Args<M>): Promise<Result<M>> {
  return invoke(method, args);
}

export const api = {
  catalog: () => call('Catalog'),
  /** The part of the catalog the Plugins list draws (part: 'list', a tenth of a large document), or a small catalog whole. */
  catalogList: () => call('CatalogList'),
  rescan: () => call('Rescan'),
  settings: () => call('Settings'),
  saveSettings: (settings: Settings, hash: string) => call('SaveSettings', settings, hash),
  openWorkspace: (path: string) => call('OpenWorkspace', path),
  setWorkspaceTrust: (trusted: boolean) => call('SetWorkspaceTrust', trusted),
  targets: () => call('Targets'),
  assign: (target: string, change: AssignChange, hash: string, ack: boolean) =>
    call('Assign', target, change, hash, ack),
  /**
   * Launches a package the specification rejects as a client loads it (client "claude"), or stops
   * ("" clears the choice); returns the catalog after a rescan. Refused (`refused`) for a valid
   * package or one that client would not load either.
   */
  setLaunchAs: (pluginId: string, client: string) => call('SetLaunchAs', pluginId, client),
  history: (target: string) => call('History', target),
  revert: (id: number, ack: boolean) => call('Revert', id, ack),
  /** backend "" launches Claude Code; from "" starts with no plugins. Refused (`refused`) for a name taken or not allowed. */
  newAgent: (name: string, backend: string, from: string) => call('NewAgent', name, backend, from),
  copyAgent: (from: string, name: string) => call('CopyAgent', from, name),
  renameAgent: (from: string, name: string) => call('RenameAgent', from, name),
  removeAgent: (name: string) => call('RemoveAgent', name),
  /** Makes the template when there is none. */
  addSlot: (template: string, agent: string) => call('AddSlot', template, agent),
  removeSlot: (id: string) => call('RemoveSlot', id),
  /** Every issue of the last scan, errors first: what the header counts. */
  problems: () => call('Problems'),
  /** Opens a file a problem names in the user's editor, at line (0: none). */
  openFile: (file: string, line: number) => call('OpenFile', file, line),
  setDraftDirty: (dirty: boolean) => call('SetDraftDirty', dirty),
  /**
   * backend "" is the agent's own. requireAck: MCP servers not acknowledged for the target stop the
   * launch with `ack-needed` (servers listed); without it they are left out (dropped, with `ack`).
   */
  launch: (target: string, backend: string, requireAck: boolean) => call('Launch', target, backend, requireAck),
  /** The backends a launch knows, each with whether its client is installed here. */
  backends: () => call('Backends'),
  /** Records the acknowledgment of servers as shown (digests); `stale` when one changed since. */
  acknowledge: (target: string, servers: AckRef[]) => call('Acknowledge', target, servers),
  watchState: () => call('WatchState'),
  /** The agent clients installed here and what they said they load from the last scan's packages. */
  clientAnswers: () => call('ClientAnswers'),
  pauseWatching: (paused: boolean) => call('PauseWatching', paused),
  /** Tells the backend the page's language: the window's tray and notices speak it. */
  setLanguage: (lang: string) => call('SetLanguage', lang),
  links: () => call('Links'),
  /** into "" is home; name "" is the manifest's name, else the folder's. */
  link: (dir: string, into: LinkInto | '', name: string, copy: boolean, force: boolean) =>
    call('Link', dir, into, name, copy, force),
  /** into (a LinkResult's) "" looks in both places. */
  unlink: (name: string, into: string) => call('Unlink', name, into),
  /** The window's folder dialog ("" when cancelled); over HTTP it fails with `unsupported`. */
  pickFolder: () => invoke('PickFolder', [], true),
  snapshots: () => call('Snapshots'),
  snapshotDiff: (a: number, b: number) => call('SnapshotDiff', a, b),
  /** Skill uses in the last `days` days (0: all time) and the assigned skills never used. */
  activity: (days: number) => call('Activity', days),
  /** The same report as CSV text (docs/api.md says the columns). */
  activityCSV: (days: number) => invoke('ActivityCSV', [days], true),
  /**
   * The window's save dialog, then the CSV written to the chosen file; resolves with its path, ""
   * when cancelled. Over HTTP it fails with `unsupported`: the page downloads activityCSV instead.
   */
  saveActivityCSV: (days: number) => invoke('SaveActivityCSV', [days], true),
  /** One prompt as one turn of the agent on a target's (or a folder's) launch; target or dir, not both. */
  try: (target: string, dir: string, backend: string, prompt: string) => call('Try', target, dir, backend, prompt),
  /**
   * Installs a plugin package: source is a git URL, owner/repo, a folder's or archive's full path, or
   * PLUGIN@MARKETPLACE; ref, path and name may be "". force installs an invalid package and replaces an
   * installed plugin of the same id. Progress lines arrive as `install:progress` while it runs, and all
   * of them in the answer. Refused (`refused`, with `reason`): `invalid-package` (with `issues`),
   * `exists`, `not-plugin`, `rule`, `not-installable`. The backend rescans before it answers.
   */
  install: (source: string, ref: string, path: string, name: string, force: boolean) =>
    call('Install', source, ref, path, name, force),
  /** Removes an installed plugin; refused (`in-use`, with `targets`) while targets assign it, unless force. */
  uninstall: (name: string, force: boolean) => call('Uninstall', name, force),
  /** The entries of plugins.lock.json: the plugins Install installed. */
  installed: () => call('Installed'),
  marketplaces: () => call('Marketplaces'),
  /** name "" takes the marketplace file's name. */
  addMarketplace: (source: string, name: string) => call('AddMarketplace', source, name),
  removeMarketplace: (name: string) => call('RemoveMarketplace', name),
  /** What an update of name ("" every installed plugin) would change; it fetches, so call it when asked. */
  checkUpdates: (name: string) => call('CheckUpdates', name),
  /** Puts the new version of an installed plugin in place (the old one kept for rollback). */
  update: (name: string) => call('Update', name),
  /** Puts back the version the last update replaced. */
  rollback: (name: string) => call('Rollback', name),
  /** What a launch of a target (or a folder) puts in front of the model, and its servers' last checks. */
  budget: (target: string, dir: string, backend: string) => call('Budget', target, dir, backend),
  /** Starts each MCP server of the launch as it would start and reports what it answers (`mcp:progress` as it goes). */
  checkMCP: (target: string, dir: string) => call('CheckMCP', target, dir),
  /** Which Plugboard serves the page (plugboard version --json). */
  version: () => call('Version'),
  /** The folder the app was last asked to open (plugboard FOLDER), once: later calls get none. */
  takeOpen: () => call('TakeOpen'),
  /** The folders the catalog looks in, each with whether it is there (the welcome view). */
  places: () => call('Places'),
  /** Whether Plugboard starts at login, in the tray (the XDG autostart entry). */
  autostart: () => call('Autostart'),
  setAutostart: (on: boolean) => call('SetAutostart', on),
};

type Handler<K extends keyof EventMap> = (data: EventMap[K]) => void;

let source: EventSource | undefined;

/**
 * Subscribes to a backend event; returns the unsubscribe function. Never throws: without an event
 * channel (no runtime, no EventSource) the page still works, it just is not told about scans.
 */
export function on<K extends keyof EventMap>(name: K, cb: Handler<K>): () => void {
  const safe = (data: unknown) => {
    try {
      cb((typeof data === 'string' ? JSON.parse(data) : data) as EventMap[K]);
    } catch (e) {
      console.warn(`plugboard: bad ${name} event`, e);
    }
  };
  if (wailsService()) {
    try {
      const off = window.runtime?.EventsOn?.(name, (...data: unknown[]) => safe(data[0]));
      return typeof off === 'function' ? off : () => {};
    } catch (e) {
      console.warn('plugboard: EventsOn failed', e);
      return () => {};
    }
  }
  try {
    if (!source && typeof EventSource !== 'undefined') {
      if (cachedToken === undefined) cachedToken = token();
      source = new EventSource('/api/events', { withCredentials: true });
      // <html data-events="open"> once the stream is connected: events sent from then on arrive
      // (a test that starts a scan elsewhere waits for it instead of sleeping)
      source.addEventListener('open', () => (document.documentElement.dataset.events = 'open'));
    }
  } catch (e) {
    console.warn('plugboard: no event stream', e);
  }
  if (!source) return () => {};
  const listener = (ev: Event) => safe((ev as MessageEvent).data);
  source.addEventListener(name, listener);
  return () => source?.removeEventListener(name, listener);
}
