// Small DOM helpers. Every text goes through textContent (never innerHTML): catalog values are
// data from packages the user did not write.

type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

/** h('div', {class: 'x', 'data-testid': 'y', onclick: fn}, 'text', child) */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on') && typeof v === 'function') {
        el.addEventListener(k.slice(2), v as EventListener);
      } else if (k === 'class') {
        el.className = String(v);
      } else if (k === 'text') {
        el.textContent = String(v);
      } else if (v === true) {
        el.setAttribute(k, '');
      } else {
        el.setAttribute(k, String(v));
      }
    }
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'number' ? String(c) : c);
  }
}

/** Replaces an element's children. */
export function mount(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/**
 * Runs rebuild (which replaces elements under root) and gives the focus back to the element that
 * now stands where the focused one stood: the same data-testid (and data-id, when it had one), or
 * the same id. Without it, a keyboard user who toggles a checkbox whose pane is rebuilt lands on
 * <body>.
 */
export function keepFocus(root: Element, rebuild: () => void): void {
  const a = document.activeElement;
  const sel = a instanceof HTMLElement && root.contains(a) ? focusSelector(a) : null;
  rebuild();
  if (!sel || (document.activeElement && root.contains(document.activeElement))) return;
  const next = root.querySelector(sel);
  if (next instanceof HTMLElement) next.focus();
}

function focusSelector(el: HTMLElement): string | null {
  const t = el.dataset.testid;
  if (t) {
    const id = el.dataset.id;
    return `[data-testid="${CSS.escape(t)}"]` + (id === undefined ? '' : `[data-id="${CSS.escape(id)}"]`);
  }
  return el.id ? `#${CSS.escape(el.id)}` : null;
}

export function $(sel: string, root: ParentNode = document): HTMLElement {
  const el = root.querySelector<HTMLElement>(sel);
  if (!el) throw new Error(`missing element ${sel}`);
  return el;
}

/** Shortens an absolute path under home to ~/… for display. */
export function tilde(path: string, home: string | undefined): string {
  if (home && (path === home || path.startsWith(home + '/'))) return '~' + path.slice(home.length);
  return path;
}

/** The last path element. */
export function basename(path: string): string {
  const i = path.replace(/\/+$/, '').lastIndexOf('/');
  return i >= 0 ? path.slice(i + 1) : path;
}

export function badge(text: string, kind: string, title?: string): HTMLSpanElement {
  return h('span', { class: `badge badge-${kind}`, title }, text);
}
