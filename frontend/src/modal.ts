// A modal dialog: an overlay with role="dialog", focus trapped inside, Escape cancels, focus
// returns to where it was. Resolves with the value of the button chosen (`cancel` for Escape).

import { h } from './dom';
import { t } from './i18n';

export interface ModalAction {
  label: string;
  value: string;
  primary?: boolean;
  testid?: string;
}

export interface ModalOptions {
  title: string;
  testid: string;
  body: Array<Node | string>;
  actions: ModalAction[];
  /** The value Escape (and a click on the backdrop) resolves with. */
  cancel: string;
}

let seq = 0;

export function openModal(o: ModalOptions): Promise<string> {
  const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const id = `modal-${++seq}`;
  return new Promise((resolve) => {
    const buttons = o.actions.map((a) =>
      h(
        'button',
        {
          type: 'button',
          class: a.primary ? 'btn btn-primary' : 'btn',
          'data-testid': a.testid,
          onclick: () => close(a.value),
        },
        a.label,
      ),
    );
    const dialog = h(
      'div',
      {
        class: 'modal',
        role: 'dialog',
        'aria-modal': 'true',
        'aria-labelledby': `${id}-title`,
        'data-testid': o.testid,
      },
      h('h2', { id: `${id}-title`, class: 'modal-title' }, o.title),
      h('div', { class: 'modal-body' }, ...o.body),
      h('div', { class: 'modal-actions' }, ...buttons),
    );
    const overlay = h('div', { class: 'modal-overlay' }, dialog);
    overlay.addEventListener('mousedown', (e) => {
      if (e.target === overlay) close(o.cancel);
    });
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        close(o.cancel);
      } else if (e.key === 'Tab') {
        trapTab(e, dialog, false);
      }
    };
    // capture: the trap sees keys before anything else on the page
    document.addEventListener('keydown', onKey, true);
    let done = false;
    function close(value: string): void {
      if (done) return;
      done = true;
      document.removeEventListener('keydown', onKey, true);
      overlay.remove();
      if (before && before.isConnected) before.focus();
      resolve(value);
    }
    document.body.append(overlay);
    (buttons.find((_, i) => !o.actions[i].primary) ?? buttons[0])?.focus();
  });
}

export interface DialogOptions {
  title: string;
  testid: string;
  body: Array<Node | string>;
  /** The label of the button that closes it (and what Escape does). */
  closeLabel?: string;
  /** A wider dialog, for a form with a list beside it. */
  wide?: boolean;
  /** Called once when the dialog closes, however it closes. */
  onClose?: () => void;
}

export interface DialogHandle {
  el: HTMLElement;
  close(): void;
}

/**
 * A dialog that stays open while the user works in it (a form, a list): the same overlay, focus trap
 * and Escape as openModal, and one Close button; the caller closes it with close().
 */
export function openDialog(o: DialogOptions): DialogHandle {
  const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const id = `modal-${++seq}`;
  const closeBtn = h(
    'button',
    { type: 'button', class: 'btn', 'data-testid': `${o.testid}-close`, onclick: () => close() },
    o.closeLabel ?? t('common.close'),
  );
  const dialog = h(
    'div',
    {
      class: o.wide ? 'modal modal-wide' : 'modal',
      role: 'dialog',
      'aria-modal': 'true',
      'aria-labelledby': `${id}-title`,
      'data-testid': o.testid,
    },
    h('h2', { id: `${id}-title`, class: 'modal-title' }, o.title),
    h('div', { class: 'modal-body' }, ...o.body),
    h('div', { class: 'modal-actions' }, closeBtn),
  );
  const overlay = h('div', { class: 'modal-overlay' }, dialog);
  overlay.addEventListener('mousedown', (e) => {
    if (e.target === overlay) close();
  });
  const onKey = (e: KeyboardEvent) => {
    // a modal opened over this one (a confirmation) handles its own keys
    if (overlay.nextElementSibling?.classList.contains('modal-overlay')) return;
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close();
    } else if (e.key === 'Tab') {
      trapTab(e, dialog, true);
    }
  };
  document.addEventListener('keydown', onKey, true);
  let done = false;
  function close(): void {
    if (done) return;
    done = true;
    document.removeEventListener('keydown', onKey, true);
    overlay.remove();
    if (before && before.isConnected) before.focus();
    o.onClose?.();
  }
  document.body.append(overlay);
  (dialog.querySelector<HTMLElement>('input, select, textarea') ?? closeBtn).focus();
  return { el: dialog, close };
}

/** "Discard unsaved changes?" — resolves true when the user chose to discard. */
export async function confirmDiscard(what: string): Promise<boolean> {
  const v = await openModal({
    title: t('common.discard.title'),
    testid: 'discard-dialog',
    body: [h('p', null, what)],
    actions: [
      { label: t('common.discard.keep'), value: 'keep', testid: 'discard-cancel' },
      { label: t('common.discard.confirm'), value: 'discard', primary: true, testid: 'discard-confirm' },
    ],
    cancel: 'keep',
  });
  return v === 'discard';
}

/**
 * Keeps Tab and Shift+Tab inside dialog: the focus moves to the next (or previous) enabled control,
 * wrapping at the ends; with visibleOnly, hidden controls (a collapsed part of a form) are skipped.
 */
function trapTab(e: KeyboardEvent, dialog: HTMLElement, visibleOnly: boolean): void {
  const f = Array.from(
    dialog.querySelectorAll<HTMLElement>('button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])'),
  ).filter((el) => !(el as HTMLButtonElement).disabled && (!visibleOnly || el.offsetParent !== null));
  if (f.length === 0) return;
  const i = f.indexOf(document.activeElement as HTMLElement);
  let j = e.shiftKey ? i - 1 : i + 1;
  if (i < 0) j = 0;
  if (j < 0) j = f.length - 1;
  if (j >= f.length) j = 0;
  e.preventDefault();
  f[j].focus();
}
