// A virtualised list: fixed row height, only the rows in view (plus a small overscan) are in the
// DOM, so a catalog of thousands of plugins scrolls as smoothly as one of ten. Keyboard: Up/Down,
// Home/End, PageUp/PageDown move the selection; Enter/Right call onOpen. The container is the
// focusable element and points at the selected row with aria-activedescendant.

import { h } from './dom';

export interface VListOptions {
  rowHeight: number;
  /** role of the container: 'listbox' (options) or 'grid' (rows of cells, a header row first). */
  role: 'listbox' | 'grid';
  label: string;
  testid: string;
  idPrefix: string;
  render: (index: number, selected: boolean) => HTMLElement;
  onSelect: (index: number) => void;
  onOpen?: (index: number) => void;
  header?: HTMLElement;
}

const OVERSCAN = 6;

export class VList {
  readonly el: HTMLDivElement;
  private readonly viewport: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private readonly rows: HTMLDivElement;
  private count = 0;
  private selected = -1;
  private frame = 0;
  private readonly opts: VListOptions;

  constructor(opts: VListOptions) {
    this.opts = opts;
    this.rows = h('div', { class: 'vlist-rows', role: 'presentation' });
    this.spacer = h('div', { class: 'vlist-spacer', role: 'presentation' }, this.rows);
    this.viewport = h(
      'div',
      {
        class: 'vlist',
        role: opts.role,
        tabindex: 0,
        'aria-label': opts.label,
        'data-testid': opts.testid,
      },
      opts.header ?? null,
      this.spacer,
    );
    if (opts.role === 'listbox') this.viewport.setAttribute('aria-orientation', 'vertical');
    this.el = this.viewport;
    this.viewport.addEventListener('scroll', () => this.schedule(), { passive: true });
    this.viewport.addEventListener('keydown', (e) => this.onKey(e));
    this.rows.addEventListener('click', (e) => {
      const row = (e.target as Element).closest<HTMLElement>('[data-index]');
      if (!row) return;
      const i = Number(row.dataset.index);
      this.select(i);
      this.viewport.focus({ preventScroll: true });
    });
    this.rows.addEventListener('dblclick', (e) => {
      const row = (e.target as Element).closest<HTMLElement>('[data-index]');
      if (row && this.opts.onOpen) this.opts.onOpen(Number(row.dataset.index));
    });
    new ResizeObserver(() => this.schedule()).observe(this.viewport);
  }

  /** Sets the number of rows and the selected index (-1: none) and redraws. */
  setData(count: number, selected: number): void {
    this.count = count;
    this.selected = selected < count ? selected : -1;
    this.spacer.style.height = `${count * this.opts.rowHeight}px`;
    if (this.opts.role === 'grid') this.viewport.setAttribute('aria-rowcount', String(count + 1));
    this.draw();
  }

  get selectedIndex(): number {
    return this.selected;
  }

  focus(): void {
    this.viewport.focus();
  }

  /** Selects a row, scrolls it into view and tells the owner. */
  select(i: number): void {
    if (this.count === 0) return;
    i = Math.max(0, Math.min(this.count - 1, i));
    this.selected = i;
    this.scrollToIndex(i);
    this.draw();
    this.opts.onSelect(i);
  }

  scrollToIndex(i: number): void {
    const rh = this.opts.rowHeight;
    const top = i * rh;
    const headerH = this.opts.header?.offsetHeight ?? 0;
    const view = this.viewport.clientHeight - headerH;
    if (top < this.viewport.scrollTop) this.viewport.scrollTop = top;
    else if (top + rh > this.viewport.scrollTop + view) this.viewport.scrollTop = top + rh - view;
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  private draw(): void {
    const rh = this.opts.rowHeight;
    const headerH = this.opts.header?.offsetHeight ?? 0;
    const height = Math.max(this.viewport.clientHeight - headerH, rh * 10);
    const first = Math.max(0, Math.floor(this.viewport.scrollTop / rh) - OVERSCAN);
    const last = Math.min(this.count, Math.ceil((this.viewport.scrollTop + height) / rh) + OVERSCAN);
    const out: HTMLElement[] = [];
    for (let i = first; i < last; i++) {
      const row = this.opts.render(i, i === this.selected);
      row.id = `${this.opts.idPrefix}-${i}`;
      row.dataset.index = String(i);
      row.style.transform = `translateY(${i * rh}px)`;
      row.style.height = `${rh}px`;
      if (this.opts.role === 'listbox') {
        row.setAttribute('role', 'option');
        row.setAttribute('aria-selected', String(i === this.selected));
        row.setAttribute('aria-setsize', String(this.count));
        row.setAttribute('aria-posinset', String(i + 1));
      } else {
        row.setAttribute('role', 'row');
        row.setAttribute('aria-rowindex', String(i + 2));
        row.setAttribute('aria-selected', String(i === this.selected));
      }
      if (i === this.selected) row.classList.add('selected');
      out.push(row);
    }
    this.rows.replaceChildren(...out);
    if (this.selected >= first && this.selected < last) {
      this.viewport.setAttribute('aria-activedescendant', `${this.opts.idPrefix}-${this.selected}`);
    } else {
      this.viewport.removeAttribute('aria-activedescendant');
    }
  }

  private onKey(e: KeyboardEvent): void {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const page = Math.max(1, Math.floor(this.viewport.clientHeight / this.opts.rowHeight) - 1);
    const cur = this.selected;
    let next: number | undefined;
    switch (e.key) {
      case 'ArrowDown':
        next = cur < 0 ? 0 : cur + 1;
        break;
      case 'ArrowUp':
        next = cur < 0 ? 0 : cur - 1;
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = this.count - 1;
        break;
      case 'PageDown':
        next = (cur < 0 ? 0 : cur) + page;
        break;
      case 'PageUp':
        next = (cur < 0 ? 0 : cur) - page;
        break;
      case 'Enter':
      case 'ArrowRight':
        if (cur >= 0 && this.opts.onOpen) {
          e.preventDefault();
          this.opts.onOpen(cur);
        }
        return;
      default:
        return;
    }
    e.preventDefault();
    this.select(next);
  }
}
