// Light and dark themes. Without a stored choice the page follows prefers-color-scheme (the CSS
// does so before this runs, so there is no flash); the toggle stores an explicit choice in
// localStorage. The effective theme is always on <html data-theme> and as a class.

export type Theme = 'light' | 'dark';

const KEY = 'plugboard.theme';

function stored(): Theme | null {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : null;
  } catch {
    return null;
  }
}

function system(): Theme {
  try {
    return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  } catch {
    return 'light';
  }
}

let choice: Theme | null = null;

export function currentTheme(): Theme {
  return choice ?? stored() ?? system();
}

type Listener = (t: Theme) => void;
const listeners: Listener[] = [];

function apply(): void {
  const t = currentTheme();
  const root = document.documentElement;
  root.dataset.theme = t;
  root.classList.toggle('theme-dark', t === 'dark');
  root.classList.toggle('theme-light', t === 'light');
  root.style.colorScheme = t;
  for (const l of listeners) l(t);
}

export function initTheme(onChange: Listener): void {
  listeners.push(onChange);
  apply();
  try {
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', apply);
  } catch {
    /* old engines: the stored choice still works */
  }
}

export function toggleTheme(): void {
  choice = currentTheme() === 'dark' ? 'light' : 'dark';
  try {
    localStorage.setItem(KEY, choice);
  } catch {
    /* not persisted; applied for this page only */
  }
  apply();
}
