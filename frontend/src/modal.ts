// Modal dialogs on <dialog>.showModal(): the browser makes the rest of the page inert, keeps the
// dialog above everything (the top layer, with its ::backdrop), sends Escape to the topmost dialog as
// a `cancel` and fires `close` however it closes. This module adds what showModal leaves out: a click on
// the backdrop cancels, Tab wraps at the ends of the dialog (rather than leaving for the browser's own
// controls), the dialog leaves the document when it closes, and the focus goes back to the control that
// opened it.

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

/**
 * Shows a modal <dialog> titled title (its accessible name), with body and a row of actions. onClose
 * runs once, after it has closed (an action, Escape, the backdrop or close()) and left the document.
 */
function show(
  o: { title: string; testid: string; body: Array<Node | string>; actions: HTMLElement[]; wide?: boolean },
  onClose: () => void,
): HTMLDialogElement {
  const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const id = `modal-${++seq}`;
  const dialog = h(
    'dialog',
    { class: o.wide ? 'modal modal-wide' : 'modal', 'aria-labelledby': `${id}-title`, 'data-testid': o.testid },
    h('h2', { id: `${id}-title`, class: 'modal-title' }, o.title),
    h('div', { class: 'modal-body' }, ...o.body),
    h('div', { class: 'modal-actions' }, ...o.actions),
  );
  // The dialog's box fills the element, so a press on the element outside its box is on the backdrop.
  // Both the press and the release must be there: a text selection that ends outside does not cancel.
  let downOutside = false;
  const outside = (e: MouseEvent) => {
    if (e.target !== dialog) return false;
    const r = dialog.getBoundingClientRect();
    return e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom;
  };
  dialog.addEventListener('mousedown', (e) => (downOutside = outside(e)));
  dialog.addEventListener('click', (e) => {
    if (downOutside && outside(e)) dialog.close();
    downOutside = false;
  });
  dialog.addEventListener('keydown', (e) => {
    if (e.key === 'Tab') wrapTab(e, dialog);
  });
  dialog.addEventListener('close', () => {
    dialog.remove();
    // showModal's close gives the focus back too, but not in every engine (nor after a re-render)
    if (before?.isConnected) before.focus();
    onClose();
  });
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

/** Resolves with the value of the button chosen, or `cancel` for Escape and the backdrop. */
export function openModal(o: ModalOptions): Promise<string> {
  return new Promise((resolve) => {
    let chosen = o.cancel;
    const buttons = o.actions.map((a) =>
      h(
        'button',
        {
          type: 'button',
          class: a.primary ? 'btn btn-primary' : 'btn',
          'data-testid': a.testid,
          onclick: () => {
            chosen = a.value;
            dialog.close();
          },
        },
        a.label,
      ),
    );
    const dialog = show({ ...o, actions: buttons }, () => resolve(chosen));
    // the safe choice first: Enter on a dialog just opened does not confirm it
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
 * A dialog that stays open while the user works in it (a form, a list): modal like openModal, with one
 * Close button; Escape and the backdrop close it too, and the caller closes it with close().
 */
export function openDialog(o: DialogOptions): DialogHandle {
  const closeBtn = h(
    'button',
    { type: 'button', class: 'btn', 'data-testid': `${o.testid}-close`, onclick: () => dialog.close() },
    o.closeLabel ?? t('common.close'),
  );
  const dialog = show({ ...o, actions: [closeBtn] }, () => o.onClose?.());
  (dialog.querySelector<HTMLElement>('input, select, textarea') ?? closeBtn).focus();
  return { el: dialog, close: () => dialog.close() };
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
 * Tab on the last control of the dialog goes to its first, Shift+Tab on the first to its last: showModal
 * keeps the focus off the inert page, but past the ends it would leave for the browser's own controls.
 * Controls that are disabled or hidden (a collapsed part of a form) are not stops.
 */
function wrapTab(e: KeyboardEvent, dialog: HTMLElement): void {
  const f = Array.from(
    dialog.querySelectorAll<HTMLElement>('button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])'),
  ).filter((el) => !(el as HTMLButtonElement).disabled && el.offsetParent !== null);
  if (f.length === 0) return;
  const i = f.indexOf(document.activeElement as HTMLElement);
  if (e.shiftKey ? i <= 0 : i === f.length - 1 || i < 0) {
    e.preventDefault();
    f[e.shiftKey ? f.length - 1 : 0].focus();
  }
}
