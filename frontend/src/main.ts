// The application shell: header (rescan, scan state, live state, theme), tabs, loading/error
// states, the settings save bar, global shortcuts, and the flow of catalog documents from the
// backend into the views. Startup: subscribe to events, then ask for the last scan (Catalog), the
// settings and the watch state.

import { ClientAnswers } from './clientAnswers';
import './style.css';
import { api, on, errorText } from './bridge';
import { h, mount } from './dom';
import { applyDocumentLang, currentLang, fmtTime, type Key, t } from './i18n';
import { icons } from './icons';
import { CatalogFeed } from './feed';
import { showError, showLoading } from './screens';
import { buildIndex, type CatalogIndex } from './search';
import { SettingsModel } from './settingsModel';
import { currentTheme, initTheme, toggleTheme } from './theme';
import { LiveStatus } from './live';
import type { CatalogDoc, ProgressEvent, Summary } from './types';
import type { Ctx, Tab } from './views/ctx';
import { AssignView } from './views/assign';
import { DevView } from './views/dev';
import { McpView } from './views/mcp';
import { ProblemsView } from './views/problems';
import { PluginsView } from './views/plugins';
import { REOPEN_TAB_KEY, SettingsView } from './views/settings';
import { SkillsView } from './views/skills';
import { TimelineView } from './views/timeline';
import { ActivityView } from './views/activity';
import { setTitle } from './title';

const TABS: Array<{ id: Tab; label: Key }> = [
  { id: 'plugins', label: 'shell.tab.plugins' },
  { id: 'skills', label: 'shell.tab.skills' },
  { id: 'mcp', label: 'shell.tab.mcp' },
  { id: 'problems', label: 'shell.tab.problems' },
  { id: 'assign', label: 'shell.tab.assign' },
  { id: 'dev', label: 'shell.tab.dev' },
  { id: 'timeline', label: 'shell.tab.timeline' },
  { id: 'activity', label: 'shell.tab.activity' },
  { id: 'settings', label: 'shell.tab.settings' },
];

let index: CatalogIndex | null = null;
/** The list part the Plugins list shows until the first whole document arrives (then null). */
let listIndex: CatalogIndex | null = null;
let tab: Tab = 'plugins';
let rescanning = false; // the page's own Rescan is running
const settings = new SettingsModel();
const feed = new CatalogFeed(
  (doc) => applyCatalog(doc),
  (e) => setScanState('error', t('shell.scan.reloadFailed', { msg: errorText(e) })),
);

// Ask for the catalog before building anything: for a large home it is megabytes, and the
// shell below is built while it travels. Events first, so a first scan's progress is seen.
on('catalog:progress', (p) => onProgress(p));
on('catalog:updated', (ev) => {
  feed.updated(ev);
  // targets may have changed on disk too: a dirty draft whose target moved goes stale
  if (shown.assign) void assign().refresh();
});
on('catalog:reloaded', (ev) => {
  live.reloaded(ev);
  // the views that read more than the catalog document read again when they are on screen
  if (tab === 'dev') dev().reloaded();
  if (tab === 'timeline') timeline().reloaded();
});
on('watch:state', (st) => live.set(st));
// the app was asked to open a folder (plugboard FOLDER, or a second start of the window)
on('app:open', () => void takeOpen());
// an agent or template file changed on disk (A5): a dirty draft whose target moved goes stale
on('targets:changed', () => {
  if (shown.assign) void assign().refresh();
});
// The list part first (a tenth of the document for a large home): the Plugins list draws its
// first rows from it while the whole document travels, asked for once the list has arrived so
// the two do not share the way. For a small home the answer is the whole document, and that is
// all. A failed list is not an error: the document is asked for anyway.
performance.mark('plugboard:catalog-request');
const firstList = api.catalogList().then(
  (doc) => {
    performance.mark('plugboard:list-parsed');
    return doc;
  },
  () => null,
);
const firstCatalog = firstList
  .then((doc) => (doc && doc.part !== 'list' ? doc : api.catalog()))
  .then((doc) => {
    performance.mark('plugboard:catalog-parsed');
    return doc;
  });
firstCatalog.catch(() => {}); // handled in start()

const answers = new ClientAnswers();
void answers.load();
const ctx: Ctx = {
  index: () => index,
  settings,
  answers,
  showPlugin: (id) => {
    switchTab('plugins');
    plugins.selectId(id);
  },
  showSkill: (entry) => {
    switchTab('skills');
    skills().select(entry);
  },
  showProblems: (severity) => {
    switchTab('problems');
    problems().filter(severity);
  },
  docCall: (fn) => feed.call(fn),
  showTab: (x) => switchTab(x, true),
  newAgent: () => {
    switchTab('assign');
    assign().openNewAgent();
  },
};

type View = { el: HTMLElement; setIndex(ix: CatalogIndex): void; activate?(): void };
// The Plugins view is what the page opens on; the others are built when first needed (their tab
// opened, or something shown in them), so a page load does not spend the main thread, before the
// first rows, on tabs nobody has looked at (the settings read local storage and ask the backend
// for the version and autostart; the assignment view builds its launch, try and budget panels).
function lazy<V extends View>(id: Tab, make: () => V): () => V {
  let v: V | undefined;
  return () => {
    if (!v) {
      v = make();
      panels[TABS.findIndex((x) => x.id === id)].append(v.el);
    }
    return v;
  };
}
const plugins = new PluginsView(ctx);
const skills = lazy('skills', () => new SkillsView(ctx));
const mcp = lazy('mcp', () => new McpView(ctx));
const problems = lazy('problems', () => new ProblemsView(ctx));
const settingsView = lazy('settings', () => new SettingsView(ctx));
const assign = lazy('assign', () => new AssignView(ctx));
const dev = lazy('dev', () => new DevView(ctx));
const timeline = lazy('timeline', () => new TimelineView());
const activity = lazy('activity', () => new ActivityView());
const live = new LiveStatus();
const views: Record<Tab, () => View> = {
  plugins: () => plugins,
  skills,
  mcp,
  problems,
  assign,
  dev,
  timeline,
  activity,
  settings: settingsView,
};
// Which catalog each view last rendered: only the visible view renders when a document arrives,
// the others catch up when their tab opens (a 10,000-skill table need not be built unseen).
const shown: Record<Tab, CatalogIndex | null> = {
  plugins: null,
  skills: null,
  mcp: null,
  problems: null,
  assign: null,
  dev: null,
  timeline: null,
  activity: null,
  settings: null,
};

function refreshView(v: Tab): void {
  if (index && shown[v] !== index) {
    shown[v] = index;
    views[v]().setIndex(index);
  }
}

// ---- shell elements -------------------------------------------------------------------------
const scanState = h('span', {
  class: 'scan-state',
  'data-testid': 'scan-state',
  role: 'status',
  'aria-live': 'polite',
});
const rescanBtn = h(
  'button',
  {
    type: 'button',
    class: 'btn btn-rescan',
    'data-testid': 'rescan',
    title: t('shell.rescan'),
    onclick: () => void rescan(),
  },
  icons.rescan(),
  h('span', { class: 'btn-label' }, t('shell.rescan')),
);
const themeBtn = h('button', {
  type: 'button',
  class: 'btn btn-icon',
  'data-testid': 'theme-toggle',
  onclick: () => toggleTheme(),
});
const tabButtons = TABS.map((x) =>
  h(
    'button',
    {
      type: 'button',
      role: 'tab',
      id: `tab-${x.id}`,
      'aria-controls': `panel-${x.id}`,
      'data-testid': `tab-${x.id}`,
      onclick: () => switchTab(x.id),
    },
    t(x.label),
  ),
);
const tablist = h('nav', { class: 'tabs', role: 'tablist', 'aria-label': t('shell.sections') }, ...tabButtons);
const progressBar = h(
  'div',
  { class: 'topbar-progress', hidden: true, 'aria-hidden': 'true' },
  h('div', { class: 'bar' }),
);
const panels = TABS.map((x) =>
  h(
    'section',
    {
      class: 'panel',
      role: 'tabpanel',
      id: `panel-${x.id}`,
      'aria-labelledby': `tab-${x.id}`,
      'data-testid': `panel-${x.id}`,
      hidden: true,
    },
    x.id === 'plugins' ? plugins.el : null,
  ),
);
const screen = h('div', { class: 'state-screen' });
const saveMsg = h('span', {
  class: 'savebar-msg',
  'data-testid': 'settings-status',
  role: 'status',
  'aria-live': 'polite',
});
const saveBtn = h(
  'button',
  { type: 'button', class: 'btn btn-primary', 'data-testid': 'settings-save', onclick: () => void save() },
  t('shell.save'),
);
const discardBtn = h(
  'button',
  { type: 'button', class: 'btn btn-quiet', 'data-testid': 'settings-discard', onclick: () => settings.discard() },
  t('shell.discard'),
);
const dismissBtn = h(
  'button',
  {
    type: 'button',
    class: 'btn btn-quiet btn-small',
    'aria-label': t('shell.dismiss'),
    onclick: () => {
      settings.notice = null;
      renderSavebar();
    },
  },
  '×',
);
const savebar = h(
  'div',
  { class: 'savebar', 'data-testid': 'savebar', hidden: true },
  saveMsg,
  h('span', { class: 'grow' }),
  discardBtn,
  saveBtn,
  dismissBtn,
);
const main = h('main', { class: 'main' }, screen, ...panels);
// The header's error and warning count leads to those problems (hidden while there are none).
const problemsBtn = h('button', {
  type: 'button',
  class: 'btn btn-small header-problems',
  'data-testid': 'header-problems',
  hidden: true,
  onclick: () => ctx.showProblems(problemsBtn.dataset.severity ?? ''),
});

const app = h(
  'div',
  { class: 'app', id: 'app' },
  h(
    'header',
    { class: 'topbar' },
    h('div', { class: 'brand' }, icons.logo(), h('h1', null, 'Plugboard')), // i18n-ignore: the product's name
    tablist,
    h('span', { class: 'grow' }),
    live.el,
    scanState,
    problemsBtn,
    rescanBtn,
    themeBtn,
    progressBar,
  ),
  main,
  savebar,
);

// ---- state rendering -------------------------------------------------------------------------
function renderTheme(): void {
  const dark = currentTheme() === 'dark';
  mount(themeBtn, dark ? icons.sun() : icons.moon());
  themeBtn.setAttribute('aria-label', t(dark ? 'shell.theme.toLight' : 'shell.theme.toDark'));
  themeBtn.title = themeBtn.getAttribute('aria-label')!;
  themeBtn.setAttribute('aria-pressed', String(dark));
}

function switchTab(next: Tab, focus = false): void {
  if (tab === 'assign' && next !== 'assign' && assign().dirty) {
    // a dirty assignment draft is not left without asking
    void assign()
      .leave()
      .then((ok) => ok && switchTab(next, focus));
    if (focus) tabButtons[TABS.findIndex((x) => x.id === tab)].focus();
    return;
  }
  const opened = tab !== next;
  tab = next;
  TABS.forEach((x, i) => {
    const sel = x.id === next;
    tabButtons[i].setAttribute('aria-selected', String(sel));
    tabButtons[i].tabIndex = sel ? 0 : -1;
    panels[i].hidden = !(index || (listIndex && x.id === 'plugins')) || !sel;
  });
  if (!index && listIndex) screen.hidden = next === 'plugins';
  const rendered = shown[next] !== index;
  refreshView(next);
  // a view that reads more than the catalog reads it again when opened (unless it just did)
  if (opened && !rendered && index) views[next]().activate?.();
  if (focus) tabButtons[TABS.findIndex((x) => x.id === next)].focus();
}

/** The window title's summary; the header leaves the issue counts to its Problems button. */
function summaryText(s: Summary, issues = true): string {
  const parts = [t('shell.summary.plugins', { n: s.plugins }), t('shell.summary.skills', { n: s.skills })];
  if (!issues) return parts.join(' · ');
  if (s.issues.errors) parts.push(t('shell.summary.errors', { n: s.issues.errors }));
  if (s.issues.warnings) parts.push(t('shell.summary.warnings', { n: s.issues.warnings }));
  return parts.join(' · ');
}

/** The header's status; `when` (the scan's time) is the part a narrow header leaves out. */
function setScanState(state: 'scanning' | 'ready' | 'error', text: string, when = ''): void {
  scanState.dataset.state = state;
  mount(scanState, text, when ? h('span', { class: 'scan-time' }, when) : null);
  rescanBtn.disabled = rescanning;
  rescanBtn.setAttribute('aria-busy', String(state === 'scanning'));
}

function onProgress(p: ProgressEvent): void {
  if (!index && !listIndex) {
    showLoading(screen, p);
    return;
  }
  progressBar.hidden = false;
  (progressBar.firstChild as HTMLElement).style.width = `${p.total ? (100 * p.done) / p.total : 0}%`;
  setScanState('scanning', t('shell.scan.progress', { done: p.done, total: p.total }));
}

/** Shows the folder the app was asked to open, if any, in Local development (TakeOpen). */
async function takeOpen(): Promise<void> {
  let dir = '';
  try {
    dir = (await api.takeOpen()).dir ?? '';
  } catch {
    return; // a backend without the method (an older serve): nothing was asked
  }
  if (!dir) return;
  switchTab('dev');
  dev().offer(dir);
  setTitle(t('shell.title.dev', { dir }));
}

/**
 * Shows the list part in the Plugins list while nothing better is shown: the loading screen
 * gives way to the list on the Plugins tab (the other tabs keep it until the document comes).
 */
function showList(doc: CatalogDoc | null): void {
  if (!doc || doc.part !== 'list' || index || doc.plugins.length === 0) return;
  listIndex = buildIndex(doc);
  document.documentElement.dataset.catalog = 'list';
  plugins.setIndex(listIndex);
  switchTab(tab);
}

function applyCatalog(doc: CatalogDoc): void {
  const first = index === null;
  listIndex = null;
  document.documentElement.dataset.catalog = 'full';
  index = buildIndex(doc);
  performance.mark('plugboard:indexed');
  progressBar.hidden = true;
  screen.hidden = true;
  refreshView(tab);
  const when = t('shell.scan.ready', { time: fmtTime(new Date()) });
  setScanState('ready', summaryText(doc.summary, false), when);
  const { errors, warnings } = doc.summary.issues;
  problemsBtn.hidden = !errors && !warnings;
  problemsBtn.dataset.severity = errors ? 'error' : 'warning';
  problemsBtn.textContent = errors ? t('problems.errors', { n: errors }) : t('problems.warnings', { n: warnings });
  problemsBtn.title = t('problems.header');
  // once the rendered view is painted (the frame after this one): the desktop test waits for the title
  const title = summaryText(doc.summary);
  requestAnimationFrame(() => setTimeout(() => setTitle(title), 0));
  scanState.title = [
    summaryText(doc.summary) + when,
    doc.workspace ? t('shell.scan.workspace', { dir: doc.workspace }) : '',
  ]
    .filter(Boolean)
    .join('\n');
  if (first) {
    switchTab(tab);
    void takeOpen();
  }
}

// ---- backend calls ---------------------------------------------------------------------------
async function rescan(): Promise<void> {
  if (rescanning) return;
  rescanning = true;
  setScanState('scanning', t('shell.scan.scanning'));
  try {
    await feed.call(api.rescan);
  } catch (e) {
    progressBar.hidden = true;
    setScanState('error', t('shell.scan.rescanFailed', { msg: errorText(e) }));
  } finally {
    rescanning = false;
    rescanBtn.disabled = false;
  }
}

async function save(): Promise<void> {
  await settings.save(); // the backend rescans after a save; catalog:updated brings the document
}

function renderSavebar(): void {
  const dirty = settings.dirty;
  savebar.hidden = !dirty && !settings.notice && !settings.busy;
  savebar.dataset.state = settings.notice?.kind ?? (dirty ? 'dirty' : '');
  saveMsg.textContent = settings.busy
    ? t('shell.saving')
    : (settings.notice?.text ?? (dirty ? t('shell.unsaved') : ''));
  saveBtn.toggleAttribute('disabled', !dirty || settings.busy);
  saveBtn.hidden = !dirty && !settings.busy;
  discardBtn.hidden = !dirty;
  dismissBtn.hidden = dirty || !settings.notice;
}

async function start(request?: Promise<CatalogDoc>): Promise<void> {
  showLoading(screen);
  setScanState('scanning', t('shell.loading'));
  void settings.load();
  try {
    await feed.call(() => request ?? api.catalog());
    performance.mark('plugboard:catalog-shown');
  } catch (e) {
    index = null;
    listIndex = null;
    switchTab(tab);
    showError(screen, errorText(e), () => void start());
    setScanState('error', t('shell.scan.notLoaded'));
  }
}

// ---- keyboard ----------------------------------------------------------------------------------
tablist.addEventListener('keydown', (e) => {
  const i = TABS.findIndex((x) => x.id === tab);
  let j = -1;
  if (e.key === 'ArrowRight') j = (i + 1) % TABS.length;
  else if (e.key === 'ArrowLeft') j = (i + TABS.length - 1) % TABS.length;
  else if (e.key === 'Home') j = 0;
  else if (e.key === 'End') j = TABS.length - 1;
  if (j < 0) return;
  e.preventDefault();
  switchTab(TABS[j].id, true);
});

document.addEventListener('keydown', (e) => {
  const el = e.target as HTMLElement | null;
  if (el?.closest('dialog')) return; // the page behind a modal dialog is inert: its shortcuts too
  const typing =
    !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable);
  if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey && (index || listIndex)) {
    e.preventDefault();
    if (tab !== 'plugins' && tab !== 'skills' && tab !== 'mcp') switchTab('plugins');
    if (tab === 'assign') return;
    if (tab === 'plugins') plugins.focusSearch();
    else if (tab === 'skills') skills().focusSearch();
    else mcp().focusSearch();
  }
});

// ---- start ---------------------------------------------------------------------------------------
settings.onChange(() => {
  renderSavebar();
  if (!index) return;
  // skill switches show the draft: redraw the visible view, let the others redraw when opened
  if (tab === 'skills') skills().refresh();
  else shown.skills = null;
  if (tab === 'plugins') plugins.refreshDetail();
  else shown.plugins = null;
});

applyDocumentLang();
// the window's tray and notices speak the page's language (the page reloads when it changes)
void api.setLanguage(currentLang()).catch(() => {});
initTheme(renderTheme);
document.getElementById('app')?.replaceWith(app);
/** The tab a reload asked to come back to (the language switch), once; else Plugins. */
function firstTab(): Tab {
  const want = sessionStorage.getItem(REOPEN_TAB_KEY);
  sessionStorage.removeItem(REOPEN_TAB_KEY);
  return TABS.find((x) => x.id === want)?.id ?? 'plugins';
}
switchTab(firstTab());
performance.mark('plugboard:shell-built');
void firstList.then(showList);
void start(firstCatalog);
void live.load();
